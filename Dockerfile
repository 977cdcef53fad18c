# syntax=docker/dockerfile:1
#
# The referee service's image: one image for every process of the production layout. Which
# command each process runs is written in one place, compose.yaml (the migrate, web, worker
# and beat services); this file's CMD and HEALTHCHECK are the web's, and the test
# tests/service/test_image_commands.py fails if they differ from compose.yaml's.
#
#   docker build -t referee:latest .
#
# Two stages. The first builds the referee wheel and collects the wheels of every dependency;
# the second, a fresh python:3.11-slim, installs exactly those wheels (--no-index) into a
# virtual environment without pip or setuptools. Nothing of the first stage but the wheels
# reaches the image: no compiler, no build backend, no source tree. It runs as an unprivileged
# user, from a home folder of its own (beat writes its schedule there).
#
# How this file was checked: it was written where no Docker daemon runs, so it has not been
# built as such. Each RUN step was executed by hand in its equivalent form on CPython 3.11:
# the context as .dockerignore lets it through (git's files of the packages, pyproject.toml,
# setup.cfg, README.md), `python -m pip wheel --no-cache-dir --wheel-dir W .` in it; then
# `python -m venv --without-pip V` and `python -m pip --python V/bin/python install
# --no-cache-dir --no-index --find-links W referee` with no package index configured, `pip
# check`, and the installed `referee` running migrate, web, worker and beat as compose.yaml
# says (the CI test above does the same against the wheel tox builds).
#
# Every dependency ships binary wheels for linux/amd64 and linux/arm64; one that did not would
# need build-essential in the first stage only.

ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY . .
RUN python -m pip wheel --no-cache-dir --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
# the base image's pip installs into the environment (which has none): PATH names it only after
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    /usr/local/bin/python -m venv --without-pip /opt/referee \
    && /usr/local/bin/python -m pip --python /opt/referee/bin/python install --no-cache-dir \
       --no-index --find-links /wheels referee \
    && /usr/local/bin/python -m pip --python /opt/referee/bin/python check \
    && useradd --create-home --home-dir /home/referee --shell /usr/sbin/nologin --uid 10001 referee
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/referee/bin:$PATH
USER referee
WORKDIR /home/referee
EXPOSE 8000 9101
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
CMD ["referee", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "4"]
