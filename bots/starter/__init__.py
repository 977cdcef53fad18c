"""The starter kit: minimal protocol v1 bots to copy (``bot.py``, ``bot.js``) and a README.

Shipped as package data so that ``referee`` installations carry it; the files are meant to be
copied out and run on their own, not imported.
"""
