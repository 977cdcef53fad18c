"""Tiny bots for the ``cmd:`` and ``py:`` seat tests, written to a test's folder.

:data:`HTTP_BOT` is a whole bot program (standard library only) whose behaviour its flags
choose, so that one file covers every way a started bot can behave: play and talk on stderr,
die at start, crash mid-match once, hang on its first decision (to kill the referee under it),
start a child of its own.
"""

from __future__ import annotations

from pathlib import Path

HTTP_BOT = r'''
import argparse, json, os, subprocess, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

p = argparse.ArgumentParser()
p.add_argument("--port", type=int, default=None)
p.add_argument("--die-at-start", action="store_true")
p.add_argument("--crash-at", type=int, default=None, help="crash on this decision, once")
p.add_argument("--marker", default=None, help="exists once the crash happened")
p.add_argument("--hang", action="store_true", help="never answer the first decision")
p.add_argument("--pidfile", default=None)
p.add_argument("--child", action="store_true", help="start a child process of its own")
p.add_argument("--long-stderr", type=int, default=0, help="write a line this long, no end")
args = p.parse_args()
sys.stderr.write("x" * args.long_stderr)
sys.stderr.flush()
if args.die_at_start:
    print("cannot load my weights", file=sys.stderr)
    sys.exit(2)
pids = [os.getpid()]
if args.child:
    pids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid)
decisions = 0

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.reply({"name": "tiny", "games": ["toy-race", "tokaido-duo"], "protocol": 1})

    def do_POST(self):
        global decisions
        msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/decide":
            return self.reply({})
        decisions += 1
        print("deciding", msg["decision"]["kind"], decisions, file=sys.stderr, flush=True)
        if args.hang:
            with open(args.pidfile + ".tmp", "w") as f:
                f.write(" ".join(map(str, pids)))
            os.replace(args.pidfile + ".tmp", args.pidfile)
            time.sleep(600)
        if decisions == args.crash_at and not os.path.exists(args.marker):
            open(args.marker, "w").close()
            print("boom: out of memory", file=sys.stderr, flush=True)
            os._exit(3)
        self.reply({"choice": msg["decision"]["options"][0]["id"]})

    def reply(self, doc):
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass

port = args.port if args.port is not None else int(os.environ["PORT"])
print("tiny listening on", port, flush=True)
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
'''


def http_bot(folder: Path) -> Path:
    path = folder / "tiny_http_bot.py"
    path.write_text(HTTP_BOT)
    return path
