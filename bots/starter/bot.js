#!/usr/bin/env node
// A complete Referee bot in one file for Node.js, no dependencies. Copy it, edit choose().
//
// Run it:    node bot.js --port 8000   [--connections 1024]
// Check it:  referee bot check http://127.0.0.1:8000 --game tokaido-duo
//
// Bot protocol v1: GET / (who you are), POST /start, POST /decide (answer {"choice": id}
// within deadline_ms), POST /end. A late, malformed or unknown answer is a strike. If choose()
// throws, the bot answers 500 {"error": "..."}: the referee shows that line in the strike.
"use strict";

const http = require("http");

const NAME = "starter-node";
const GAMES = ["tokaido-duo", "doubletrack"];
// Connections taken at once: the referee keeps one open per seat per match. Said in GET /.
const CONNECTIONS = 1024;

// THE function to edit: return the id of one of decision.options (every option is legal),
// or [id, "a note for the match log"]. view is what your seat may see; request has deadline_ms.
function choose(decision, view, request) {
  const options = decision.options;
  const pick = options[Math.floor(Math.random() * options.length)];
  return [pick.id, `picked ${pick.label} at random among ${options.length}`];
}

function reply(res, status, doc) {
  const body = Buffer.from(JSON.stringify(doc));
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": body.length });
  res.end(body);
}

function handle(req, res, raw) {
  if (req.method === "GET" && req.url === "/") {
    return reply(res, 200, {
      name: NAME, author: "you", version: "1", games: GAMES, protocol: 1,
      max_connections: connections,
    });
  }
  if (req.method !== "POST") return reply(res, 404, { error: `no route ${req.method} ${req.url}` });
  let message;
  try {
    message = JSON.parse(raw || "{}");
  } catch (err) {
    return reply(res, 400, { error: "expected a JSON body" });
  }
  if (req.url === "/decide") {
    let answer;
    try {
      answer = choose(message.decision, message.view, message);
    } catch (err) {
      // your bug: the referee shows this line in the strike it records; the stack goes to stderr
      console.error(err);
      return reply(res, 500, { error: String(err && err.name ? `${err.name}: ${err.message}` : err) });
    }
    return Array.isArray(answer)
      ? reply(res, 200, { choice: answer[0], log: answer[1] })
      : reply(res, 200, { choice: answer });
  }
  if (req.url === "/start" || req.url === "/end") return reply(res, 200, { ok: true });
  return reply(res, 404, { error: `no route ${req.url}` });
}

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const host = option("--host", "127.0.0.1");
const port = Number(option("--port", "8000"));
const connections = Number(option("--connections", String(CONNECTIONS)));

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
});
server.keepAliveTimeout = 65000; // keep the referee's connection open between decisions
server.maxConnections = connections;
server.on("error", (err) => {
  console.error(`cannot listen on ${host}:${port}: ${err.code || err.message}; ` +
                "try another --port (0 picks a free one)");
  process.exit(1);
});
server.listen({ port, host, backlog: connections }, () => {
  console.log(`${NAME} listening on http://${host}:${server.address().port}`);
});
