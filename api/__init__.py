"""The Flask service over the referee and the ladder: REST endpoints and the public leaderboard.

Not built yet: it comes after the games, the runner, the bot protocol and the ladder. It will be
an app factory (``create_app(config)``) with one blueprint per resource (bots, matches,
leaderboards), marshmallow schemas at the edge so that a malformed request is a 4xx with a
message, and the ladder's store (``ladder.store``) as its only way to the database. Matches are
played by Celery workers through ``referee.lineup`` and ``referee.match``, never in a request.
"""
