// A client that is not ours: starts inarow-server, connects with the `ws`
// package, speaks the protocol in JSON over text frames, and plays a
// tic-tac-toe bot to the end. Exits 0 on success, 1 with a reason otherwise.
//
//   node play_vs_bot.mjs path/to/inarow-server
import { spawn } from "node:child_process";
import WebSocket from "ws";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node play_vs_bot.mjs path/to/inarow-server");
  process.exit(2);
}

function die(why) {
  console.error(`FAIL: ${why}`);
  server.kill("SIGKILL");
  process.exit(1);
}

const server = spawn(binary, ["--port", "0", "--store", ":memory:"], {
  stdio: ["ignore", "pipe", "pipe"],
});
const timer = setTimeout(() => die("timed out"), 60_000);

const port = await new Promise((resolve, reject) => {
  let seen = "";
  const look = (chunk) => {
    seen += chunk.toString();
    const m = seen.match(/listening on 127\.0\.0\.1:(\d+)/);
    if (m) resolve(Number(m[1]));
  };
  server.stdout.on("data", look);
  server.stderr.on("data", look);
  server.on("exit", (code) => reject(new Error(`server exited early with ${code}`)));
});

const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
let nextId = 1;
const send = (body) => {
  const message = { requestId: String(nextId++), ...body };
  ws.send(JSON.stringify(message)); // a string goes out as a text frame
};

// The game as we follow it: cells "a1".."c3" that hold a stone.
const taken = new Set();
const cells = ["b2", "a1", "c1", "a3", "c3", "a2", "b1", "b3", "c2"];
let matchId = null;
let lastSeq = 0;
let ended = null;

ws.on("open", () => send({ hello: { protocolVersion: 1, name: "node-ws" } }));
ws.on("message", (data, isBinary) => {
  if (isBinary) die("the server answered a text frame with a binary one");
  const msg = JSON.parse(data.toString());
  // A move sent just as the bot's winning move arrived is refused as too late.
  if (msg.error && !(msg.error.code === "ERROR_MATCH_OVER" && ended)) {
    die(`error from server: ${JSON.stringify(msg.error)}`);
  }
  if (msg.error) return;
  if (msg.welcome) {
    if (!msg.welcome.playerId || !msg.welcome.token) die("welcome without id or token");
    send({ playBot: { variant: "tictactoe", level: "medium", side: "SIDE_FIRST" } });
    return;
  }
  if (msg.ack && msg.ack.matchId && !matchId) matchId = msg.ack.matchId;
  if (!msg.event) return;
  const e = msg.event;
  const seq = Number(e.seq);
  if (seq !== lastSeq + 1) die(`event seq ${seq} after ${lastSeq}`);
  lastSeq = seq;
  if (!e.clocks && seq > 1) die("event without clocks");
  if (e.moveMade) taken.add(e.moveMade.move);
  if (e.ended) {
    ended = e.ended;
    setTimeout(() => ws.close(1000), 50);
    return;
  }
  const ourTurn =
    (e.started && e.started.state.toMove === "SIDE_FIRST") ||
    (e.moveMade && e.moveMade.side === "SIDE_SECOND");
  if (ourTurn) {
    // Let frames already received (an `ended` right behind this move) go first.
    setImmediate(() => {
      if (ended) return;
      const cell = cells.find((c) => !taken.has(c));
      send({ move: { matchId: e.matchId, move: cell } });
    });
  }
});
ws.on("error", (err) => die(`websocket: ${err.message}`));
ws.on("close", () => {
  if (!ended) die("closed before the match ended");
  if (!["RESULT_FIRST_WINS", "RESULT_SECOND_WINS", "RESULT_DRAW"].includes(ended.result)) {
    die(`odd result ${ended.result}`);
  }
  console.log(
    `ok: match ${matchId} ended ${ended.result} (${ended.reason}) after ${taken.size} moves, ` +
      `${lastSeq} events`,
  );
  server.on("exit", (code) => {
    clearTimeout(timer);
    if (code !== 0) die(`server exited with ${code} after SIGTERM`);
    process.exit(0);
  });
  server.kill("SIGTERM");
});
