// The peer for bench/compare: a boardgame.io 0.50.2 server hosting
// tic-tac-toe (the game from boardgame.io's own tutorial), in-memory storage.
// Prints "listening on 127.0.0.1:PORT" like inarow-server.
//   NODE_ENV=production node server.js --port 0
const { Server } = require('boardgame.io/server');
const { INVALID_MOVE } = require('boardgame.io/core');

const lines = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

const TicTacToe = {
  name: 'tic-tac-toe',
  setup: () => ({ cells: Array(9).fill(null) }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    clickCell: ({ G, playerID }, id) => {
      if (G.cells[id] !== null) return INVALID_MOVE;
      G.cells[id] = playerID;
    },
  },
  endIf: ({ G, ctx }) => {
    for (const [a, b, c] of lines) {
      if (G.cells[a] !== null && G.cells[a] === G.cells[b] && G.cells[a] === G.cells[c]) {
        return { winner: ctx.currentPlayer };
      }
    }
    if (G.cells.every((c) => c !== null)) return { draw: true };
  },
};

const argv = process.argv.slice(2);
const at = argv.indexOf('--port');
const port = at >= 0 ? Number(argv[at + 1]) : 8000;

const server = Server({ games: [TicTacToe], origins: [/.*/] });
server.run(port).then(({ appServer }) => {
  console.log(`listening on 127.0.0.1:${appServer.address().port}`);
});
