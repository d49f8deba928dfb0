// The Node driver of bench/compare: plays the comparison's scenario against
// the boardgame.io peer (server.js) through its own client protocol, socket.io
// (the 'sync' and 'update' messages boardgame.io's SocketIO transport speaks).
// Prints one RESULT line with the same keys as compare-load.
//
// Scenario (the same as compare-load's): N concurrent matches of tic-tac-toe,
// two connections each; each player plays a random empty cell as soon as it
// is its turn; a finished game is restarted at once by the same two players
// (seat 0 picks a fresh match id, both sync to it: boardgame.io creates the
// match on the first sync). A move's round trip is from sending the update to
// receiving the state that contains it.
//
//   node drive.js --port P --server-pid PID --matches 100 --seconds 10
const { io } = require('socket.io-client');
const fs = require('fs');

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const opt = {
  host: arg('host', '127.0.0.1'),
  port: Number(arg('port', '8000')),
  serverPid: Number(arg('server-pid', '0')),
  matches: Number(arg('matches', '100')),
  seconds: Number(arg('seconds', '10')),
  warmup: Number(arg('warmup-seconds', '2')),
  sourceAddresses: Number(arg('source-addresses', '1')),
  connectTimeout: Number(arg('connect-timeout-seconds', '120')),
};
const GAME = 'tic-tac-toe';

const stats = { connected: 0, failed: 0, dropped: 0, moves: 0, games: 0, errors: 0, rtt: [] };
let measuring = false;
let stopping = false;

function sample(pid) {
  const s = { cpu: 0, rss: -1, hwm: -1 };
  if (!pid) return s;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    s.cpu = (Number(f[11]) + Number(f[12])) / 100;  // utime, stime (fields 14, 15) in ticks
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    s.rss = Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
    s.hwm = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
  } catch (e) {}
  return s;
}

class Player {
  constructor(match, seat, index) {
    this.match = match;
    this.seat = String(seat);
    this.index = index;
    this.game = 0;
    this.matchID = null;
    this.lastStateID = -1;
    this.pending = null;  // { stateID, sent }
    this.greeted = false;
  }

  connect() {
    const opts = { transports: ['websocket'], forceNew: true, reconnection: false };
    if (opt.sourceAddresses > 1) opts.localAddress = `127.0.0.${2 + (this.index % opt.sourceAddresses)}`;
    const s = io(`http://${opt.host}:${opt.port}/${GAME}`, opts);
    this.socket = s;
    s.on('connect', () => {
      if (!this.greeted) { this.greeted = true; stats.connected++; }
    });
    s.on('connect_error', () => { if (!this.greeted && !stopping) { stats.failed++; this.greeted = true; } });
    s.on('disconnect', () => { if (!stopping) stats.dropped++; });
    s.on('sync', (matchID, info) => { if (matchID === this.matchID) this.onState(info.state); });
    s.on('update', (matchID, state) => { if (matchID === this.matchID) this.onState(state); });
  }

  join(matchID) {
    this.matchID = matchID;
    this.lastStateID = -1;
    this.pending = null;
    this.socket.emit('sync', matchID, this.seat, undefined, 2);
  }

  // Seat 0 starts each game: a fresh id, both players sync to it.
  newGame() {
    if (stopping) return;
    this.game++;
    const id = `m${this.match.id}-${this.game}`;
    this.join(id);
    this.match.players[1].join(id);
  }

  onState(state) {
    if (state._stateID <= this.lastStateID) return;
    this.lastStateID = state._stateID;
    if (this.pending && state._stateID > this.pending.stateID) {
      const rtt = Number(process.hrtime.bigint() - this.pending.sent) / 1000;
      this.pending = null;
      if (measuring && !stopping) { stats.moves++; stats.rtt.push(rtt); }
    }
    if (state.ctx.gameover !== undefined) {
      if (this.seat === '0') {
        if (measuring && !stopping) stats.games++;
        this.newGame();
      }
      return;
    }
    if (state.ctx.currentPlayer === this.seat && !this.pending && !stopping) {
      const empty = [];
      state.G.cells.forEach((c, i) => { if (c === null) empty.push(i); });
      const cell = empty[Math.floor(Math.random() * empty.length)];
      this.pending = { stateID: state._stateID, sent: process.hrtime.bigint() };
      const action = { type: 'MAKE_MOVE', payload: { type: 'clickCell', args: [cell], playerID: this.seat } };
      this.socket.emit('update', action, state._stateID, this.matchID, this.seat);
    }
  }
}

function percentile(v, p) {
  if (!v.length) return 0;
  const sorted = Float64Array.from(v).sort();
  return sorted[Math.floor((p / 100) * (sorted.length - 1))];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const players = [];
  const matches = [];
  for (let m = 0; m < opt.matches; m++) {
    const match = { id: m, players: [] };
    for (let seat = 0; seat < 2; seat++) {
      const p = new Player(match, seat, players.length);
      match.players.push(p);
      players.push(p);
    }
    matches.push(match);
  }
  const idle = sample(opt.serverPid);
  const t = Date.now();
  for (let i = 0; i < players.length; i++) {
    players[i].connect();
    if (i % 200 === 199) {
      while (stats.connected + stats.failed < i - 100 && Date.now() - t < opt.connectTimeout * 1000) await sleep(1);
    }
  }
  while (stats.connected + stats.failed < players.length && Date.now() - t < opt.connectTimeout * 1000) await sleep(5);
  const connectS = (Date.now() - t) / 1000;
  await sleep(500);
  const connected = sample(opt.serverPid);
  for (const m of matches) m.players[0].newGame();
  await sleep(opt.warmup * 1000);
  const before = sample(opt.serverPid);
  measuring = true;
  const t0 = process.hrtime.bigint();
  await sleep(opt.seconds * 1000);
  measuring = false;
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = sample(opt.serverPid);
  stopping = true;
  for (const p of players) p.socket.close();
  const cpu = after.cpu - before.cpu;
  const ok = stats.connected;
  const r = {
    target: 'peer', json: 1, matches: opt.matches, connections: players.length, connected: ok,
    failed: stats.failed, dropped: stats.dropped, connect_s: connectS.toFixed(2), seconds: elapsed.toFixed(2),
    moves: stats.moves, moves_per_s: (stats.moves / elapsed).toFixed(0), games: stats.games, errors: stats.errors,
    p50_ms: (percentile(stats.rtt, 50) / 1000).toFixed(3), p99_ms: (percentile(stats.rtt, 99) / 1000).toFixed(3),
    p999_ms: (percentile(stats.rtt, 99.9) / 1000).toFixed(3),
    people_p99_ms: (percentile(stats.rtt, 99) / 1000).toFixed(3), bot_p99_ms: '0.000',
    cpu_s: cpu.toFixed(2), cpu_s_per_1000: stats.moves ? ((cpu * 1000) / stats.moves).toFixed(4) : '0',
    idle_kib: idle.rss, connected_kib: connected.rss,
    kib_per_conn: ok ? ((connected.rss - idle.rss) / ok).toFixed(1) : '0', hwm_kib: after.hwm,
  };
  console.log('RESULT ' + Object.entries(r).map(([k, v]) => `${k}=${v}`).join(' '));
  process.exit(ok === players.length ? 0 : 1);
}
main();
