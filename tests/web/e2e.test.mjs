// End-to-end tests of the browser client: a real inarow-server (port 0,
// in-memory store) serving the page, Debian's chromium driven by
// playwright-core. Usage: INAROW_SERVER=path/to/inarow-server node --test e2e.test.mjs
// Screenshots of finished games go to $INAROW_WEB_ARTIFACTS (default build/web-e2e).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const serverBinary = process.env.INAROW_SERVER || path.join(repo, 'build/release/server/inarow-server');
const artifacts = process.env.INAROW_WEB_ARTIFACTS || path.join(repo, 'build/web-e2e');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

let server;
let base;
let browser;

before(async () => {
  // Missing tools are a failure, not a skip: these tests are the client's only check.
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} is missing: apt-get install chromium (scripts/setup.sh)`);
  assert.ok(fs.existsSync(serverBinary), `${serverBinary} is missing: set INAROW_SERVER`);
  fs.mkdirSync(artifacts, { recursive: true });
  ({ process: server, base } = await startServer({ port: 0, store: ':memory:' }));
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await stopServer(server);
});

// A ladder file of bots/weights as inarow-arena calibrate writes it: the
// levels' lines (name, Elo, margin), the first at 0, and the header's games.
function readLadder(variant) {
  const text = fs.readFileSync(path.join(repo, 'bots/weights', `${variant}_levels.txt`), 'utf8');
  const levels = new Map();
  let anchor = null;
  for (const line of text.split('\n')) {
    const m = /^(\w+)\s+(-?[\d.]+)\s+([\d.]+)$/.exec(line.trim());
    if (line.startsWith('#') || !m) continue;
    anchor ??= m[1];
    levels.set(m[1], { elo: Number(m[2]), margin: Number(m[3]) });
  }
  const games = Number(/^# measured Elo of the bot levels: .*?(\d+) games/m.exec(text)[1]);
  return { levels, anchor, games };
}

// Starts inarow-server; resolves with the process and its base URL once it
// says where it listens.
async function startServer({ port, store }) {
  const child = spawn(serverBinary, ['--port', String(port), '--store', store, '--log-level', 'info'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 15000);
    const onData = (chunk) => {
      log += chunk;
      const m = /listening on ([\d.]+):(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}:${m[2]}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited (${code}):\n${log}`)));
  });
  return { process: child, base: url };
}

async function stopServer(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

// ---------------------------------------------------------------- helpers

async function newPlayer(name, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, ...options });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.errors = errors;
  await page.goto(options.url || base + '/');
  await enterName(page, name);
  return page;
}

async function enterName(page, name) {
  await page.locator('#name').fill(name);
  await page.locator('#enter').click();
}

const gameView = (page) => page.locator('#game-view');

async function waitFor(page, fn, arg, timeout = 20000) {
  await page.waitForFunction(fn, arg, { timeout });
}

// Waits until it is our move or the game is over; returns which.
async function myTurnOrOver(page) {
  await waitFor(page, () => ['me', 'over'].includes(document.querySelector('#game-view').dataset.turn));
  return gameView(page).getAttribute('data-turn');
}

async function ply(page) {
  return Number(await gameView(page).getAttribute('data-ply'));
}

// Plays the playable cell nearest the centre (with a little noise), so games
// stay compact; the server decides if it is legal.
// Resign (the button asks to be pressed again) and wait for the end.
async function resign(page) {
  await page.locator('#resign').click();
  await page.locator('#resign').click();
  await waitFor(page, () => document.querySelector('#game-view').dataset.turn === 'over');
}

async function playSomewhere(page) {
  // The turn and the cells in one look, so an event between two looks cannot
  // pair one moment's turn with another's board.
  const seen = await page.evaluate(() => ({
    turn: document.querySelector('#game-view').dataset.turn,
    ply: document.querySelector('#game-view').dataset.ply,
    connection: document.body.dataset.connection,
    status: document.querySelector('#game-status').textContent,
    cells: [...document.querySelectorAll('#board .cell.playable')].map((n) => n.dataset.cell),
  }));
  const { cells, ...state } = seen;
  assert.equal(state.turn, 'me', `not our turn: ${JSON.stringify(state)}`);
  assert.ok(cells.length > 0, `no playable cell on our turn: ${JSON.stringify(state)}`);
  const shape = await page.$eval('#board svg', (svg) => svg.getAttribute('viewBox'));
  const [, , w, h] = shape.split(' ').map(Number);
  const centre = { col: (w - 56) / 80 - 0.5, row: (h - 56) / 80 - 0.5 };
  const score = (c) => {
    const col = c.charCodeAt(0) - 97;
    const row = Number(c.slice(1)) - 1;
    return Math.hypot(col - centre.col, row - centre.row) + Math.random() * 2.5;
  };
  cells.sort((a, b) => score(a) - score(b));
  const before = await ply(page);
  await page.locator(`#board .cell.playable[data-cell="${cells[0]}"]`).click();
  await waitFor(page, (n) => {
    const v = document.querySelector('#game-view').dataset;
    return Number(v.ply) > n || v.turn === 'over';
  }, before);
}

async function playToTheEnd(page, maxMoves = 200) {
  for (let i = 0; i < maxMoves; i++) {
    if ((await myTurnOrOver(page)) === 'over') return;
    await playSomewhere(page);
  }
  assert.fail('the game did not end');
}

async function startBotGame(page, { variant, level = 'beginner', time = '0+0', custom }) {
  await page.locator('#lobby-view').waitFor();
  await page.locator('#variant').selectOption(variant);
  if (custom) {
    await page.locator('#m').fill(String(custom.m));
    await page.locator('#n').fill(String(custom.n));
    await page.locator('#k').fill(String(custom.k));
    if (custom.gravity) await page.locator('#gravity').check();
  }
  await page.locator('#time').selectOption(time);
  await page.locator('#level').selectOption(level);
  await page.locator('#play-bot').click();
  await gameView(page).waitFor();
}

async function screenshot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

// The server's gauge of open WebSocket connections.
async function openConnections(origin) {
  const text = await (await fetch(origin + '/metrics')).text();
  const m = /^inarow_connections (\d+)$/m.exec(text);
  assert.ok(m, 'no inarow_connections in /metrics');
  return Number(m[1]);
}

function assertNoErrors(page) {
  assert.deepEqual(page.errors.map(String), [], 'uncaught errors in the page');
}

// ---------------------------------------------------------------- tests

test('the server serves the page, its modules and the private-game path', async () => {
  for (const [target, type] of [['/', 'text/html'], ['/?watch=x', 'text/html'], ['/play/ABC', 'text/html'],
    ['/assets/app.js', 'text/javascript'], ['/assets/style.css', 'text/css'], ['/assets/board.js', 'text/javascript']]) {
    const res = await fetch(base + target);
    assert.equal(res.status, 200, target);
    assert.ok(res.headers.get('content-type').startsWith(type), `${target}: ${res.headers.get('content-type')}`);
  }
  // Raw paths: fetch() would tidy the dots away before sending.
  const status = (target) => new Promise((resolve, reject) => {
    http.get(base + '/', { path: target }, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject);
  });
  for (const target of ['/assets/nothing.js', '/assets/../index.html', '/assets/', '/play/a/b']) {
    assert.equal(await status(target), 404, target);
  }
  assert.equal(await (await fetch(base + '/healthz')).text(), 'ok\n');
});

test('a whole tic-tac-toe game against a bot, by keyboard and mouse', async () => {
  const page = await newPlayer('ada');
  // Before the game: the chosen bot's rating in the chosen variant on this server.
  await page.locator('#variant').selectOption('tictactoe');
  await page.locator('#level').selectOption('medium');
  const strength = page.locator('#bot-strength[data-level="medium"][data-variant="tictactoe"]');
  await strength.waitFor();
  const before = await strength.innerText();
  assert.match(before, /^medium bot: (no rated games in Tic-tac-toe yet|\d+ ±\d+ in Tic-tac-toe, over \d+ rated games?)$/);
  // Under it, what the arena measured: tic-tac-toe has no ladder.
  const arena = page.locator('#bot-arena[data-level="medium"][data-variant="tictactoe"]');
  await arena.waitFor();
  assert.equal(await arena.innerText(), 'arena: not measured in Tic-tac-toe');
  const gamesBefore = Number(/over (\d+)/.exec(before)?.[1] ?? 0);
  await startBotGame(page, { variant: 'tictactoe', level: 'medium' });
  assert.equal(await myTurnOrOver(page), 'me');
  // The game starts with the keyboard on the board, not on the page's body.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'board');
  // Nothing to take back before our first move.
  assert.equal(await page.locator('#takeback').isVisible(), false, 'takeback offered before we moved');
  // The keyboard: focus the board (cursor at the centre), one step left, Enter plays a2.
  await page.locator('#board').focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');
  await waitFor(page, () => Number(document.querySelector('#game-view').dataset.ply) >= 1);
  assert.equal(await page.locator('#board [data-cell="a2"]').getAttribute('data-stone'), 'first');
  // Enter on a2 again: the page sends it and shows the server's refusal.
  assert.equal(await myTurnOrOver(page), 'me');
  await page.keyboard.press('Enter');
  await page.locator('#flash', { hasText: /occupied/ }).waitFor();
  assert.equal(await ply(page), 2);
  await playToTheEnd(page);
  const result = await page.locator('#result').innerText();
  assert.match(result, /You (won|lost)|Draw/);
  // A rated bot game shows both rating changes.
  assert.equal(await page.locator('#result .rating-change').count(), 2);
  assert.match(result, /ada \(you\): 1500 → \d+ \([+-]\d+\)/);
  // The player cards show the ratings after the game, as the result does.
  const after = /ada \(you\): 1500 → (\d+)/.exec(result)[1];
  assert.equal(await page.locator('.player[data-side="SIDE_FIRST"] .rating').innerText(), after);
  const bot = await page.locator('.player[data-side="SIDE_SECOND"]');
  const botAfter = new RegExp(`${await bot.locator('.name').innerText()}: \\d+ → (\\d+)`).exec(result)[1];
  assert.equal(await bot.locator('.rating').innerText(), botAfter);
  await screenshot(page, 'tictactoe');
  // Back in the lobby the bot's line counts this game.
  await page.locator('#leave').click();
  await page.locator('#bot-strength', { hasText: `medium bot: ${botAfter} ±` }).waitFor();
  assert.match(await strength.innerText(), new RegExp(`over ${gamesBefore + 1} rated games?$`));
  // Another level asks again.
  await page.locator('#level').selectOption('expert');
  await page.locator('#bot-strength[data-level="expert"]').waitFor();
  assert.match(await page.locator('#bot-strength').innerText(), /^expert bot: /);
  // Connect four's levels were measured: the numbers are the ladder file's.
  await page.locator('#variant').selectOption('connect4');
  await page.locator('#level').selectOption('hard');
  await page.locator('#bot-strength[data-level="hard"][data-variant="connect4"]').waitFor();
  assert.match(await page.locator('#bot-strength').innerText(),
    /^hard bot: (no rated games in Connect four yet|\d+ ±\d+ in Connect four, over \d+ rated games?)$/);
  const ladder = readLadder('connect4');
  const hard = ladder.levels.get('hard');
  await page.locator('#bot-arena[data-level="hard"][data-variant="connect4"]').waitFor();
  assert.equal(await page.locator('#bot-arena').innerText(),
    `arena: +${Math.round(hard.elo)} Elo over ${ladder.anchor} (±${Math.round(hard.margin)}, ${ladder.games} games)`);
  assertNoErrors(page);
  await page.context().close();
});

test('after a game against a bot, Rematch starts a new one with the sides swapped', async () => {
  const page = await newPlayer('rex');
  await startBotGame(page, { variant: 'tictactoe', level: 'easy' });
  const first = await gameView(page).getAttribute('data-match-id');
  assert.match(await page.locator('.player[data-side="SIDE_FIRST"] .name').innerText(), /\(you\)$/);
  // No rematch while the game is on.
  assert.equal(await page.locator('#rematch').isVisible(), false);
  await playToTheEnd(page);
  await page.locator('#rematch').click();
  await waitFor(page, (old) => {
    const v = document.querySelector('#game-view').dataset;
    return v.matchId !== old && v.turn !== 'over';
  }, first);
  // Now we play second: the bot opens, then it is our move.
  assert.match(await page.locator('.player[data-side="SIDE_SECOND"] .name').innerText(), /^rex \(you\)$/);
  assert.doesNotMatch(await page.locator('.player[data-side="SIDE_FIRST"] .name').innerText(), /\(you\)/);
  assert.equal(await myTurnOrOver(page), 'me');
  assert.equal(await ply(page), 1);
  assert.equal(await page.locator('#board [data-stone="first"]').count(), 1);
  assert.equal(await page.locator('#rematch').isVisible(), false);
  assert.equal(await page.locator('#resign').isVisible(), true);
  await playToTheEnd(page);
  await screenshot(page, 'rematch');
  assertNoErrors(page);
  await page.context().close();
});

test('connect four against a bot: falling discs, clocks count down, takeback, phone layout', async () => {
  const page = await newPlayer('bea', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await startBotGame(page, { variant: 'connect4', time: '3+2' });
  assert.equal(await myTurnOrOver(page), 'me');
  // Our clock (first) runs while we think.
  const clock = page.locator('.player[data-side="SIDE_FIRST"] .clock');
  assert.equal(await clock.isVisible(), true);
  const t0 = await clock.innerText();
  // Waits for the next figure, not for a fixed time that races the display's tick.
  await waitFor(page, (t) => document.querySelector('.player[data-side="SIDE_FIRST"] .clock').innerText !== t, t0);
  const t1 = await clock.innerText();
  assert.match(t0, /^\d+:\d\d$/);
  assert.notEqual(t0, t1, 'the clock should count down');
  // A click anywhere in column 4 drops a disc to the bottom, d1.
  await page.locator('#board [data-cell="d5"]').click();
  await waitFor(page, () => Number(document.querySelector('#game-view').dataset.ply) >= 2);
  assert.equal(await page.locator('#board [data-cell="d1"]').getAttribute('data-stone'), 'first');
  // Takeback: the bot grants it; our move and its reply are gone.
  await page.locator('#takeback').click();
  await waitFor(page, () => Number(document.querySelector('#game-view').dataset.ply) === 0);
  assert.equal(await page.locator('#board [data-stone]').count(), 0);
  await playToTheEnd(page);
  // Legible on a phone: nothing wider than the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  await screenshot(page, 'connect4-phone');
  await page.setViewportSize({ width: 1100, height: 800 });
  await screenshot(page, 'connect4');
  assertNoErrors(page);
  await page.context().close();
});

test('gomoku and a custom m,n,k board against bots, to the end', async () => {
  const page = await newPlayer('cyd');
  await startBotGame(page, { variant: 'gomoku', level: 'beginner' });
  await playToTheEnd(page);
  assert.match(await page.locator('#game-status').innerText(), /5 in a row|resignation|board full/);
  await screenshot(page, 'gomoku');
  await page.locator('#leave').click();
  await startBotGame(page, { variant: 'custom', custom: { m: 9, n: 7, k: 4 } });
  assert.equal(await gameView(page).getAttribute('data-variant'), 'mnk:9,7,4');
  await playToTheEnd(page);
  await screenshot(page, 'mnk-9x7x4');
  await page.locator('#leave').click();
  await startBotGame(page, { variant: 'custom', custom: { m: 5, n: 5, k: 4 } });
  await playToTheEnd(page);
  await screenshot(page, 'mnk-5x5x4');
  assertNoErrors(page);
  await page.context().close();
});

test('moves in pairs, a board a screen reader can read, the opponent announced, sounds and mute', async () => {
  const page = await newPlayer('abe');
  await startBotGame(page, { variant: 'tictactoe', level: 'medium' });
  assert.equal(await myTurnOrOver(page), 'me');
  // The board is a grid of three rows, top row first, each of three labelled cells.
  const board = page.locator('#board');
  assert.equal(await board.getAttribute('role'), 'grid');
  assert.equal(await page.locator('#board [role="row"]').count(), 3);
  assert.deepEqual(await page.$$eval('#board [role="row"][aria-rowindex="1"] [role="gridcell"]', (cells) =>
    cells.map((c) => c.getAttribute('aria-label'))), ['a3, empty', 'b3, empty', 'c3, empty']);
  // The keyboard's cursor is the grid's active cell: the centre, then one left.
  await board.focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await board.getAttribute('aria-activedescendant'), 'cell-a2');
  await page.keyboard.press('Enter');
  await waitFor(page, () => Number(document.querySelector('#game-view').dataset.ply) >= 2);
  // The bot's reply is announced, with whose move it is now.
  await waitFor(page, () => /\) played [a-c][1-3]\. Your move\.$/.test(document.querySelector('#announce').textContent));
  const [reply] = await page.$$eval('#moves .move[data-ply="2"]', (n) => n.map((m) => m.textContent));
  assert.match(await page.locator('#announce').innerText(), new RegExp(`\\(nought\\) played ${reply}\\. Your move\\.$`));
  assert.equal(await page.locator('#cell-a2').getAttribute('aria-label'), 'a2, cross');
  assert.equal(await page.locator(`#cell-${reply}`).getAttribute('aria-label'), `${reply}, nought, last move`);
  // One line a full move: "1. a2 <reply>".
  assert.equal(await page.locator('#moves li').count(), 1);
  assert.deepEqual(await page.$$eval('#moves li', (n) => n.map((li) => li.innerText.split(/\s+/).join(' '))),
    [`1. a2 ${reply}`]);
  // Sounds: the start and both moves.
  assert.deepEqual(await page.evaluate(() => window.inarow.sounds), ['start', 'move', 'move']);
  // Muted, and still muted after a reload: the next moves are silent.
  assert.equal(await page.locator('#mute').getAttribute('aria-pressed'), 'false');
  await page.locator('#mute').click();
  assert.equal(await page.locator('#mute').getAttribute('aria-pressed'), 'true');
  await page.reload();
  await waitFor(page, () => document.querySelector('#game-view').dataset.turn === 'me');
  assert.equal(await page.locator('#mute').getAttribute('aria-pressed'), 'true');
  await playSomewhere(page);
  await waitFor(page, () => ['me', 'over'].includes(document.querySelector('#game-view').dataset.turn));
  assert.deepEqual(await page.evaluate(() => window.inarow.sounds), [], 'a muted page made sounds');
  // Sound back on: the rest of the game is heard, its end too.
  await page.locator('#mute').click();
  await playToTheEnd(page);
  const heard = await page.evaluate(() => window.inarow.sounds);
  assert.equal(heard.at(-1), 'end');
  assert.ok(heard.includes('move'), heard.join());
  assert.equal(await page.locator('#announce').innerText(), await page.locator('#game-status').innerText());
  // The full moves are numbered 1, 2, 3... with at most two moves each.
  const lines = await page.$$eval('#moves li', (n) => n.map((li) => li.innerText.split(/\s+/)));
  lines.forEach((words, i) => {
    assert.equal(words[0], `${i + 1}.`);
    assert.ok(words.length === 3 || (words.length === 2 && i === lines.length - 1), words.join(' '));
  });
  assert.equal(lines.flat().length - lines.length, await ply(page));
  assertNoErrors(page);
  await page.context().close();
});

// The swap2 opening: the game view's data-opening names the step
// (place-three, choose, place-two, choose-side; empty once it is over).
const openingView = (page) => page.evaluate(() => {
  const v = document.querySelector('#game-view').dataset;
  return { opening: v.opening, turn: v.turn, ply: Number(v.ply) };
});

async function stoneCounts(page) {
  return {
    first: await page.locator('#board [data-stone="first"]').count(),
    second: await page.locator('#board [data-stone="second"]').count(),
  };
}

test('swap2 against a bot, choosing: the bot places three stones, we take black, white plays stone 4', async () => {
  const page = await newPlayer('sam');
  await page.locator('#lobby-view').waitFor();
  // A custom board offers swap2 only where it can open a game: no gravity, k >= 4, 16 cells or more.
  await page.locator('#variant').selectOption('custom');
  await page.locator('#m').fill('9');
  await page.locator('#n').fill('9');
  await page.locator('#k').fill('4');
  await page.locator('#swap2').check();
  await page.locator('#bot-strength[data-variant="mnk:9,9,4,swap2"]').waitFor();
  await page.locator('#gravity').check();
  assert.equal(await page.locator('#swap2').isDisabled(), true);
  await page.locator('#bot-strength[data-variant="mnk:9,9,4,gravity"]').waitFor();
  await page.locator('#gravity').uncheck();
  await page.locator('#k').fill('3');
  assert.equal(await page.locator('#swap2').isDisabled(), true);
  await page.locator('#k').fill('4');
  assert.equal(await page.locator('#swap2').isDisabled(), false);
  // The leaderboard has the swap2 games too.
  assert.deepEqual(await page.$$eval('#top-variant option', (o) => o.map((x) => x.value).filter((v) => v.endsWith('swap2'))),
    ['gomoku-swap2', 'gomoku-standard-swap2']);
  await page.locator('#side').selectOption('SIDE_SECOND');
  await startBotGame(page, { variant: 'gomoku-swap2', level: 'beginner' });
  assert.equal(await gameView(page).getAttribute('data-variant'), 'gomoku-swap2');
  assert.match(await page.locator('#variant-name').innerText(), /^Gomoku 15×15, swap2( · rated)?$/);
  // The bot, seated first, places black, white, black; then the choice is ours.
  await waitFor(page, () => {
    const v = document.querySelector('#game-view').dataset;
    return v.opening === 'choose' && v.turn === 'me';
  });
  assert.equal(await ply(page), 3);
  assert.deepEqual(await stoneCounts(page), { first: 2, second: 1 });
  assert.equal(await page.locator('#game-status').innerText(), 'Choose: play black, play white, or place two more stones');
  assert.equal(await page.locator('#board .cell.playable').count(), 0, 'a stone offered while we must choose');
  for (const name of ['Play black', 'Play white', 'Place two more stones']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).isVisible(), true, name);
  }
  assert.equal(await page.locator('#opening-hint').innerText(), 'Black has 2 stones, white 1 stone; white plays next.');
  // No draw offers during the opening.
  assert.equal(await page.locator('#offer-draw').isDisabled(), true);
  // The choices come next after the board for the keyboard.
  await page.locator('#board').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'choose-first');
  await screenshot(page, 'gomoku-swap2-choice');
  await page.getByRole('button', { name: 'Play black', exact: true }).click();
  // The focus, on the button that went, is back on the board.
  await waitFor(page, () => document.querySelector('#game-view').dataset.opening === '');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'board');

  // Sides swapped: we are black (first); the bot, now white, places stone 4; then it is our move.
  await waitFor(page, () => {
    const v = document.querySelector('#game-view').dataset;
    return v.opening === '' && v.turn === 'me' && v.ply === '4';
  });
  assert.equal(await page.locator('.player[data-side="SIDE_FIRST"] .name').innerText(), 'sam (you)');
  assert.doesNotMatch(await page.locator('.player[data-side="SIDE_SECOND"] .name').innerText(), /\(you\)/);
  assert.deepEqual(await stoneCounts(page), { first: 2, second: 2 });
  assert.equal(await page.locator('#game-status').innerText(), 'Your move (black)');
  assert.equal(await page.locator('#opening-choice').isVisible(), false);
  assert.equal(await page.locator('#opening-note').innerText(), 'You took black.');
  assert.equal(await page.locator('.player.to-move').count(), 1);
  assert.equal(await page.locator('.player.to-move').getAttribute('data-side'), 'SIDE_FIRST');
  assert.equal(await page.locator('#offer-draw').isDisabled(), false);
  // Stone 5 is ours, and black.
  await playSomewhere(page);
  const fifth = await page.locator('#moves .move[data-ply="5"]').innerText();
  assert.equal(await page.locator(`#board [data-cell="${fifth}"]`).getAttribute('data-stone'), 'first');
  // The bot's stone 6 may land at any moment: the stones and the ply in one look.
  const seen = await page.evaluate(() => ({
    ply: Number(document.querySelector('#game-view').dataset.ply),
    first: document.querySelectorAll('#board [data-stone="first"]').length,
    second: document.querySelectorAll('#board [data-stone="second"]').length,
  }));
  assert.equal(seen.first, 3, JSON.stringify(seen));
  assert.equal(seen.second, seen.ply - 3, JSON.stringify(seen));
  await screenshot(page, 'gomoku-swap2-chooser');
  await resign(page);
  assert.match(await page.locator('#game-status').innerText(), /You lost · resignation/);
  assertNoErrors(page);
  await page.context().close();
});

test('swap2 against a bot, proposing: we place three stones by clicking, the bot decides, play goes on', async () => {
  const page = await newPlayer('pip');
  await startBotGame(page, { variant: 'gomoku-swap2', level: 'beginner' });
  const cells = ['h8', 'i9', 'g9'];
  for (const [i, cell] of cells.entries()) {
    await waitFor(page, (n) => {
      const v = document.querySelector('#game-view').dataset;
      return v.opening === 'place-three' && v.turn === 'me' && Number(v.ply) === n;
    }, i);
    assert.equal(await page.locator('#game-status').innerText(), `Place three stones: black, white, black (${i + 1} of 3)`);
    if (i === 0) {
      assert.equal(await page.locator('#takeback').isVisible(), false);
      assert.equal(await page.locator('#offer-draw').isDisabled(), true);
    }
    await page.locator(`#board [data-cell="${cell}"]`).click();
  }
  // Our three stones, by ply parity black, white, black, came before any of the bot's.
  await waitFor(page, () => Number(document.querySelector('#game-view').dataset.ply) >= 3);
  assert.deepEqual(await page.$$eval('#moves .move', (n) => n.slice(0, 3).map((m) => m.textContent)), cells);
  assert.deepEqual(await Promise.all(cells.map((c) => page.locator(`#board [data-cell="${c}"]`).getAttribute('data-stone'))),
    ['first', 'second', 'first']);

  // The bot takes a colour, or places two more stones and hands the choice back.
  await waitFor(page, () => {
    const v = document.querySelector('#game-view').dataset;
    return v.opening === '' || (v.opening === 'choose-side' && v.turn === 'me');
  });
  let state = await openingView(page);
  if (state.opening === 'choose-side') {
    assert.equal(state.ply, 5);
    assert.deepEqual(await stoneCounts(page), { first: 3, second: 2 });
    assert.match(await page.locator('#opening-note').innerText(), /^.+ chose to place two more stones\.$/);
    assert.equal(await page.locator('#game-status').innerText(), 'Choose your colour: black or white');
    assert.equal(await page.getByRole('button', { name: 'Place two more stones' }).isVisible(), false);
    await page.getByRole('button', { name: 'Play white', exact: true }).click();
    await waitFor(page, () => document.querySelector('#game-view').dataset.opening === '');
    assert.match(await page.locator('#opening-note').innerText(), /You took white\.$/);
    assert.equal(await page.locator('.player[data-side="SIDE_SECOND"] .name').innerText(), 'pip (you)');
  } else {
    assert.match(await page.locator('#opening-note').innerText(), /^.+ took (black|white)\.$/);
  }
  // The opening is over: exactly one player is to move, and the game goes on.
  assert.equal(await page.locator('.player.to-move').count(), 1);
  assert.equal(await page.locator('#opening-choice').isVisible(), false);
  assert.equal(await myTurnOrOver(page), 'me');
  const mine = await page.locator('.player', { hasText: '(you)' }).getAttribute('data-side');
  assert.equal(await page.locator('#game-status').innerText(), `Your move (${mine === 'SIDE_FIRST' ? 'black' : 'white'})`);
  assert.equal(await page.locator('.player.to-move').getAttribute('data-side'), mine);
  const before = await ply(page);
  assert.equal(before % 2 === 0 ? 'SIDE_FIRST' : 'SIDE_SECOND', mine, 'our stone is our side\'s colour');
  await playSomewhere(page);
  const placed = await page.locator(`#moves .move[data-ply="${before + 1}"]`).innerText();
  assert.equal(await page.locator(`#board [data-cell="${placed}"]`).getAttribute('data-stone'),
    mine === 'SIDE_FIRST' ? 'first' : 'second');
  state = await openingView(page);
  assert.equal(state.opening, '');
  await screenshot(page, 'gomoku-swap2-proposer');
  await resign(page);
  // Its replay: every stone, coloured by ply as in any game, the opening's three ours.
  const final = await page.$$eval('#board [data-stone]', (n) => n.map((x) => x.dataset.cell + x.dataset.stone).sort());
  await page.locator('#replay-game').click();
  await page.locator('#replay-view').waitFor();
  assert.equal(Number(await page.locator('#replay-view').getAttribute('data-ply')), final.length);
  assert.deepEqual(await page.$$eval('#replay-board [data-stone]', (n) => n.map((x) => x.dataset.cell + x.dataset.stone).sort()), final);
  await page.locator('#replay-moves button[data-ply="3"]').click();
  assert.deepEqual(await page.$$eval('#replay-board [data-stone]', (n) => n.map((x) => x.dataset.cell + x.dataset.stone).sort()),
    ['g9first', 'h8first', 'i9second']);
  assert.match(await page.locator('#replay-title').innerText(), /^Gomoku 15×15, swap2: /);
  assertNoErrors(page);
  await page.context().close();
});

test('a phone: a gomoku stone is placed by a tap and played by a second; touch targets of 44 px', async () => {
  const page = await newPlayer('pia', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await startBotGame(page, { variant: 'gomoku', level: 'beginner' });
  assert.equal(await myTurnOrOver(page), 'me');
  // A tap on h8 previews it and offers "Play h8"; nothing is sent yet.
  await page.locator('#board [data-cell="h8"]').tap();
  await page.locator('#confirm-play', { hasText: 'Play h8' }).waitFor();
  assert.equal(await ply(page), 0);
  assert.equal(await page.locator('#board .cell.selected').getAttribute('data-cell'), 'h8');
  assert.equal(await page.$eval('#board .cell.selected .ghost', (g) => getComputedStyle(g).opacity), '0.6');
  // A tap elsewhere moves the preview; Cancel drops it.
  await page.locator('#board [data-cell="g7"]').tap();
  await page.locator('#confirm-play', { hasText: 'Play g7' }).waitFor();
  await page.locator('#confirm-cancel').tap();
  assert.equal(await page.locator('#confirm-move').isVisible(), false);
  assert.equal(await page.locator('#board .cell.selected').count(), 0);
  // Tapping the button plays it.
  await page.locator('#board [data-cell="h8"]').tap();
  await page.locator('#confirm-play').tap();
  await waitFor(page, () => Number(document.querySelector('#game-view').dataset.ply) >= 2);
  assert.equal(await page.locator('#board [data-cell="h8"]').getAttribute('data-stone'), 'first');
  assert.equal(await page.locator('#confirm-move').isVisible(), false);
  // So does a second tap on the same cell.
  const free = await page.$$eval('#board .cell.playable', (n) => n.map((c) => c.dataset.cell));
  const next = ['i9', 'g7', 'i7', 'g9', 'j10'].find((c) => free.includes(c));
  await page.locator(`#board [data-cell="${next}"]`).tap();
  assert.equal(await ply(page), 2);
  await page.locator(`#board [data-cell="${next}"]`).tap();
  await waitFor(page, (c) => document.querySelector(`#board [data-cell="${c}"]`).dataset.stone === 'first', next);
  // Every control a finger can reach here is at least 44 px high.
  const small = await page.$$eval('button, select, input', (nodes) => nodes
    .filter((n) => n.offsetParent !== null)
    .map((n) => [n.id || n.textContent, n.getBoundingClientRect().height])
    .filter(([, h]) => h < 44));
  assert.deepEqual(small, []);
  await screenshot(page, 'gomoku-phone-confirm');
  assertNoErrors(page);
  await page.context().close();
});

test('two people play through a private-game link, with a draw offer and a takeback', async () => {
  const ann = await newPlayer('ann');
  await ann.locator('#variant').selectOption('tictactoe');
  await ann.locator('#create-private').click();
  await ann.locator('#private-link').waitFor();
  const link = await ann.locator('#private-url').inputValue();
  assert.match(link, /\/play\/[^/]+$/);

  const bob = await newPlayer('bob', { url: link });
  for (const page of [ann, bob]) await gameView(page).waitFor();
  assert.equal(await gameView(ann).getAttribute('data-match-id'), await gameView(bob).getAttribute('data-match-id'));
  assert.equal(await gameView(ann).getAttribute('data-turn'), 'me');
  assert.equal(await gameView(bob).getAttribute('data-turn'), 'them');
  assert.equal(await ann.locator('#leave').isVisible(), false, 'no wandering off a live game');

  const move = async (page, cell) => {
    const before = await ply(page);
    await page.locator(`#board [data-cell="${cell}"]`).click();
    await waitFor(page, (n) => Number(document.querySelector('#game-view').dataset.ply) > n, before);
  };
  assert.equal(await ann.locator('#takeback').isVisible(), false, 'takeback before ann moved');
  await move(ann, 'a1');
  assert.equal(await ann.locator('#takeback').isVisible(), true);
  await waitFor(bob, () => document.querySelector('#game-view').dataset.ply === '1');
  assert.equal(await bob.locator('#takeback').isVisible(), false, 'takeback before bob moved');
  await move(bob, 'b2');
  // Bob asks to take b2 back; Ann allows it; Bob plays a2 instead.
  await bob.locator('#takeback').click();
  await ann.locator('#takeback-asker', { hasText: 'bob asks to take a move back.' }).waitFor();
  await ann.locator('#accept-takeback').click();
  await waitFor(bob, () => Number(document.querySelector('#game-view').dataset.ply) === 1);
  await move(bob, 'a2');
  // Ann offers a draw; Bob declines it.
  await ann.locator('#offer-draw').click();
  await bob.locator('#draw-offerer', { hasText: 'ann offers a draw.' }).waitFor();
  await screenshot(bob, 'private-draw-offered');
  await bob.locator('#decline-draw').click();
  await ann.locator('#flash', { hasText: 'declined the draw' }).waitFor();
  // Bob's page goes away: Ann sees him away; he comes back to the same game.
  await bob.goto('about:blank');
  await ann.locator('.player[data-side="SIDE_SECOND"] .away').waitFor({ state: 'visible' });
  await bob.goto(base + '/');
  await waitFor(bob, () => document.querySelector('#game-view').dataset.ply === '2');
  await ann.locator('.player[data-side="SIDE_SECOND"] .away').waitFor({ state: 'hidden' });
  await move(ann, 'b1');
  await move(bob, 'b2');
  await move(ann, 'c1');
  for (const page of [ann, bob]) await waitFor(page, () => document.querySelector('#game-view').dataset.turn === 'over');
  assert.match(await ann.locator('#game-status').innerText(), /You won · 3 in a row/);
  assert.match(await bob.locator('#game-status').innerText(), /You lost/);
  assert.match(await ann.locator('#result').innerText(), /Unrated/);
  assert.equal(await ann.locator('#board .win-line').count(), 1);
  await screenshot(bob, 'private-tictactoe');
  for (const page of [ann, bob]) {
    assertNoErrors(page);
    await page.context().close();
  }
});

test('two people seeking the same game are paired', async () => {
  const [sue, tom] = [await newPlayer('sue'), await newPlayer('tom')];
  for (const page of [sue, tom]) {
    await page.locator('#variant').selectOption('connect4');
    await page.locator('#time').selectOption('5+3');
    await page.locator('#seek').click();
    if (page === sue) {
      await sue.locator('#status', { hasText: 'Looking for an opponent' }).waitFor();
      assert.equal(await sue.locator('#cancel-seek').isVisible(), true);
    }
  }
  for (const page of [sue, tom]) await gameView(page).waitFor();
  assert.equal(await gameView(sue).getAttribute('data-match-id'), await gameView(tom).getAttribute('data-match-id'));
  const turns = [await gameView(sue).getAttribute('data-turn'), await gameView(tom).getAttribute('data-turn')].sort();
  assert.deepEqual(turns, ['me', 'them']);
  assert.equal(await sue.locator('#status').innerText(), '');
  // Both clocks show the time control; only the side to move runs.
  assert.equal(await sue.locator('.player[data-side="SIDE_FIRST"] .clock').isVisible(), true);
  assert.match(await sue.locator('.player[data-side="SIDE_SECOND"] .clock').innerText(), /^5:0\d$/);
  for (const page of [sue, tom]) {
    assertNoErrors(page);
    await page.context().close();
  }
});

test('a spectator follows a game from the live list to its end', async () => {
  const player = await newPlayer('pat');
  await startBotGame(player, { variant: 'custom', custom: { m: 8, n: 6, k: 4, gravity: true } });
  await myTurnOrOver(player);
  await playSomewhere(player);
  const matchId = await gameView(player).getAttribute('data-match-id');

  const fan = await newPlayer('fan');
  await fan.locator('#refresh').click();
  await fan.locator(`#matches a[data-match-id="${matchId}"]`).waitFor();
  await screenshot(fan, 'lobby');
  await fan.locator(`#matches a[data-match-id="${matchId}"]`).click();
  await waitFor(fan, (id) => document.querySelector('#game-view').dataset.matchId === id, matchId);
  assert.equal(await gameView(fan).getAttribute('data-role'), 'spectator');
  assert.equal(await fan.locator('#board .cell.playable').count(), 0, 'a spectator cannot play');
  assert.equal(await fan.locator('#resign').isVisible(), false);
  await waitFor(fan, (n) => Number(document.querySelector('#game-view').dataset.ply) >= n, await ply(player));

  // Two bots of the levels chosen, started from the lobby, are watched at once.
  await fan.locator('#leave').click();
  await fan.locator('#variant').selectOption('tictactoe');
  await fan.locator('#bot-first').selectOption('beginner');
  await fan.locator('#bot-second').selectOption('expert');
  await fan.locator('#bot-match').click();
  await waitFor(fan, () => document.querySelector('#game-view').dataset.role === 'spectator'
    && document.querySelector('#game-view').dataset.turn === 'over');
  assert.match(await fan.locator('#game-status').innerText(), /won|Draw/);
  assert.deepEqual(await fan.$$eval('#game-view .player .name', (n) => n.map((x) => x.textContent)),
    ['beginner bot', 'expert bot']);
  await fan.locator('#leave').click();
  await fan.locator(`#matches a[data-match-id="${matchId}"]`).click();
  await waitFor(fan, (id) => document.querySelector('#game-view').dataset.matchId === id, matchId);

  // A watch link opens the same game directly.
  const late = await newPlayer('late', { url: `${base}/?watch=${matchId}` });
  await waitFor(late, (id) => document.querySelector('#game-view').dataset.matchId === id, matchId);
  assert.equal(await gameView(late).getAttribute('data-role'), 'spectator');

  await playToTheEnd(player);
  const final = await ply(player);
  await waitFor(fan, () => document.querySelector('#game-view').dataset.turn === 'over');
  assert.equal(await ply(fan), final);
  assert.match(await fan.locator('#game-status').innerText(), /won|Draw/);
  assert.deepEqual(await fan.$$eval('#board [data-stone]', (n) => n.map((x) => x.dataset.cell + x.dataset.stone).sort()),
    await player.$$eval('#board [data-stone]', (n) => n.map((x) => x.dataset.cell + x.dataset.stone).sort()));
  await screenshot(fan, 'spectator-mnk-8x6x4-gravity');

  await waitFor(late, () => document.querySelector('#game-view').dataset.turn === 'over');
  assert.equal(await ply(late), final);
  for (const page of [player, fan, late]) {
    assertNoErrors(page);
    await page.context().close();
  }
});

test('a reload and a dropped connection mid-game both resume the game', async () => {
  const page = await newPlayer('rex');
  await startBotGame(page, { variant: 'gomoku', time: '10+5' });
  await myTurnOrOver(page);
  await playSomewhere(page);
  await myTurnOrOver(page);
  const matchId = await gameView(page).getAttribute('data-match-id');
  const plies = await ply(page);
  assert.ok(plies >= 2);

  await page.reload();
  await waitFor(page, (id) => document.querySelector('#game-view').dataset.matchId === id, matchId);
  await waitFor(page, (n) => Number(document.querySelector('#game-view').dataset.ply) === n, plies);
  assert.equal(await page.locator('#name-view').isVisible(), false, 'the token in localStorage names us again');
  assert.equal(await page.locator('#board [data-stone]').count(), plies);
  await playSomewhere(page);
  await myTurnOrOver(page);

  // The socket drops (as on a network change); the page reconnects and resumes.
  const before = await ply(page);
  await page.evaluate(() => window.inarow.conn.socket.close());
  await page.locator('#status', { hasText: 'reconnecting' }).waitFor();
  await waitFor(page, () => document.querySelector('#status').textContent === '');
  assert.equal(await ply(page), before);
  await playSomewhere(page);
  assert.ok((await ply(page)) > before);
  await resign(page);
  assert.match(await page.locator('#game-status').innerText(), /You lost · resignation/);
  assertNoErrors(page);
  await page.context().close();
});

test('a name of only spaces is refused with a message, then a real one plays', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.locator('#name-view').waitFor();
  await enterName(page, '   ');
  await page.locator('#name-error', { hasText: 'only spaces' }).waitFor();
  assert.equal(await page.locator('#name-view').isVisible(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'name');
  await enterName(page, '  zoe  ');
  await page.locator('#lobby-view').waitFor();
  assert.equal(await page.locator('#me').innerText(), 'zoe');
  assert.equal(await page.locator('#name-error').isVisible(), false);
  await context.close();
});

test('a token the server does not know (a fresh store) asks for a name again', async () => {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    if (!sessionStorage.getItem('seeded')) {
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem('inarow.token', 'not-a-token');
      localStorage.setItem('inarow.cursors', JSON.stringify({ m0: 3 }));
    }
  });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.locator('#name-view').waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('inarow.token')), null);
  await enterName(page, 'new');
  await page.locator('#lobby-view').waitFor();
  assert.match(await page.evaluate(() => localStorage.getItem('inarow.token')), /^[0-9a-f]+$/);
  await context.close();
});

test('a server restart: one socket per tab, nothing playable while away, players and spectators resume', async () => {
  // A server of its own, with a file store, so it can stop and come back on
  // the same port with the same players and matches.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inarow-web-'));
  const store = path.join(dir, 'inarow.sqlite');
  let own = await startServer({ port: 0, store });
  const origin = own.base;
  const port = new URL(origin).port;
  const pages = [];
  try {
    const ivy = await newPlayer('ivy', { url: origin + '/' });
    pages.push(ivy);
    await startBotGame(ivy, { variant: 'tictactoe' });
    assert.equal(await myTurnOrOver(ivy), 'me');
    await playSomewhere(ivy);
    assert.equal(await myTurnOrOver(ivy), 'me');
    const matchId = await gameView(ivy).getAttribute('data-match-id');
    const plies = await ply(ivy);
    // A spectator of ivy's live game, and one of two bots' game that ends
    // before the restart (the restarted server no longer has it).
    const joe = await newPlayer('joe', { url: `${origin}/?watch=${matchId}` });
    pages.push(joe);
    await waitFor(joe, (n) => Number(document.querySelector('#game-view').dataset.ply) === n, plies);
    const kim = await newPlayer('kim', { url: origin + '/' });
    pages.push(kim);
    await kim.locator('#lobby-view').waitFor();
    await kim.locator('#variant').selectOption('tictactoe');
    await kim.locator('#bot-match').click();
    await waitFor(kim, () => document.querySelector('#game-view').dataset.turn === 'over');
    const botMatch = await gameView(kim).getAttribute('data-match-id');
    const botResult = await kim.locator('#game-status').innerText();
    assert.equal(await openConnections(origin), 3);

    await stopServer(own.process);
    // While away the board takes nothing and the game's buttons are off.
    await waitFor(ivy, () => document.body.dataset.connection === 'offline');
    await ivy.locator('#status', { hasText: 'reconnecting' }).waitFor();
    assert.equal(await ivy.locator('#board .cell.playable').count(), 0, 'a playable cell while disconnected');
    assert.equal(await ivy.locator('#board.playable').count(), 0);
    for (const id of ['#resign', '#offer-draw']) assert.equal(await ivy.locator(id).isDisabled(), true, id);
    assert.match(await ivy.locator('#pending').innerText(), /Not connected/);
    // Long enough for several retries, past the backoff's cap.
    await ivy.waitForTimeout(12000);
    assert.equal(await ivy.locator('#board .cell.playable').count(), 0);

    own = await startServer({ port, store });
    assert.equal(own.base, origin);
    for (const page of pages) {
      await waitFor(page, () => document.body.dataset.connection === 'connected'
        && document.querySelector('#status').textContent === '', undefined, 15000);
    }
    // Longer than the longest backoff: a second reconnect timer would have fired by now.
    await ivy.waitForTimeout(6000);
    assert.equal(await openConnections(origin), 3, 'one connection per tab');
    for (const page of pages) {
      assert.equal(await page.evaluate(() => document.body.dataset.connection), 'connected');
      assert.equal(await page.locator('#status').innerText(), '');
      assert.equal(await page.locator('#status.error').count(), 0);
    }

    // ivy plays on in the same game; joe is still watching it and sees the move.
    assert.equal(await gameView(ivy).getAttribute('data-match-id'), matchId);
    assert.equal(await ply(ivy), plies);
    assert.equal(await myTurnOrOver(ivy), 'me');
    assert.equal(await ivy.locator('#resign').isDisabled(), false);
    await playSomewhere(ivy);
    await waitFor(joe, (n) => Number(document.querySelector('#game-view').dataset.ply) >= n, await ply(ivy));
    assert.equal(await gameView(joe).getAttribute('data-match-id'), matchId);
    assert.equal(await gameView(joe).getAttribute('data-role'), 'spectator');
    // kim's finished game stays on screen as it ended, not swapped for the lobby.
    assert.equal(await kim.locator('#game-view').isVisible(), true);
    assert.equal(await gameView(kim).getAttribute('data-match-id'), botMatch);
    assert.equal(await kim.locator('#game-status').innerText(), botResult);
    for (const page of pages) assertNoErrors(page);
  } finally {
    for (const page of pages) await page.context().close();
    await stopServer(own.process);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an open seek is seen in the lobby and accepted there; a spectator is counted', async () => {
  const amy = await newPlayer('amy');
  await amy.locator('#variant').selectOption('tictactoe');
  await amy.locator('#time').selectOption('3+2');
  await amy.locator('#rated').check();
  await amy.locator('#seek').click();
  // Her own seek is listed with Cancel, not Accept.
  const own = amy.locator('#seeks li', { hasText: 'amy' });
  await own.locator('button', { hasText: 'Cancel' }).waitFor();
  assert.equal(await own.locator('button', { hasText: 'Accept' }).count(), 0);

  // Another player sees it with its terms, its player's rating and the counts.
  const ben = await newPlayer('ben');
  const row = ben.locator('#seeks li', { hasText: 'amy' });
  await row.waitFor();
  assert.equal(await row.locator('span').innerText(), 'amy (1500) · Tic-tac-toe · 3+2 · rated');
  assert.match(await ben.locator('#lobby-counts').innerText(), /^\d+ online · \d+ games? in play$/);
  await row.locator('button', { hasText: 'Accept' }).click();

  for (const page of [amy, ben]) await gameView(page).waitFor();
  const matchId = await gameView(amy).getAttribute('data-match-id');
  assert.equal(await gameView(ben).getAttribute('data-match-id'), matchId);
  assert.equal(await gameView(amy).getAttribute('data-turn'), 'me');  // the seeker plays first
  assert.equal(await gameView(ben).getAttribute('data-turn'), 'them');
  assert.match(await amy.locator('#variant-name').innerText(), /rated/);
  assert.equal(await amy.locator('#watchers').innerText(), '');

  // A third player finds the seek gone and the game in play, and watches.
  const cat = await newPlayer('cat');
  await waitFor(cat, () => /^\d+ online · [1-9]\d* games? in play$/.test(document.querySelector('#lobby-counts').textContent));
  assert.equal(await cat.locator('#seeks li', { hasText: 'amy' }).count(), 0);
  await cat.locator('#refresh').click();
  await cat.locator(`#matches a[data-match-id="${matchId}"]`).click();
  await waitFor(cat, (id) => document.querySelector('#game-view').dataset.matchId === id, matchId);
  for (const page of [amy, ben, cat]) {
    await waitFor(page, () => document.querySelector('#watchers').textContent === '1 watching');
  }
  await cat.locator('#leave').click();
  for (const page of [amy, ben]) {
    await waitFor(page, () => document.querySelector('#watchers').textContent === '');
  }
  // The players stopped following the seeks when their game began: cat's
  // seek, listed in cat's lobby, is not pushed to them. Amy's move, sent
  // after cat saw it, comes back on her socket behind any such push.
  await cat.locator('#seek').click();
  await cat.locator('#seeks li', { hasText: 'cat' }).locator('button', { hasText: 'Cancel' }).waitFor();
  await playSomewhere(amy);
  assert.equal(await amy.locator('#seeks li', { hasText: 'cat' }).count(), 0);
  assert.equal(await ben.locator('#seeks li', { hasText: 'cat' }).count(), 0);
  for (const page of [amy, ben, cat]) {
    assertNoErrors(page);
    await page.context().close();
  }
});

test('My games lists a finished bot game; its replay steps by click and keys, downloads and links', async () => {
  const page = await newPlayer('rhea');
  await startBotGame(page, { variant: 'tictactoe', level: 'beginner' });
  await playToTheEnd(page);
  const matchId = await gameView(page).getAttribute('data-match-id');
  const plies = await ply(page);
  assert.ok(plies >= 5, `a tic-tac-toe game that ended after ${plies} moves`);
  // A finished game can be replayed from its own view, and is in My games.
  assert.equal(await page.locator('#replay-game').isVisible(), true);
  await page.locator('#leave').click();
  await page.locator('#lobby-view').waitFor();
  const entry = page.locator(`#my-games a[data-match-id="${matchId}"]`);
  await entry.waitFor();
  assert.equal(await page.locator('#my-games li').count(), 1);
  assert.match(await entry.innerText(), /^(Won|Lost|Draw) vs Beginner/i);
  assert.match(await page.locator('#my-games .game-detail').innerText(), /Tic-tac-toe · [+-]\d+ · /);
  assert.equal(await entry.getAttribute('href'), `/game/${matchId}`);
  // Her profile lists the same game among her recent games.
  await page.locator('#my-profile').click();
  await page.locator(`#profile-games a[data-match-id="${matchId}"]`).waitFor();
  assert.equal(await page.locator('#profile-games li').count(), 1);

  await entry.click();
  const replay = page.locator('#replay-view');
  await replay.waitFor();
  assert.equal(await replay.getAttribute('data-match-id'), matchId);
  // It opens on the final position: every stone of the game on the board.
  assert.equal(Number(await replay.getAttribute('data-ply')), plies);
  assert.equal(await page.locator('#replay-board .cell[data-stone]').count(), plies);
  const moves = await page.$$eval('#replay-moves button[data-ply]', (bs) => bs.map((b) => b.textContent));
  assert.equal(moves.length, plies);
  assert.equal(await page.locator('#replay-moves li').count(), Math.ceil(plies / 2));
  // A click on the first move: one stone, where that move went, by the first player.
  await page.locator('#replay-moves button[data-ply="1"]').click();
  assert.equal(await replay.getAttribute('data-ply'), '1');
  assert.equal(await page.locator('#replay-board .cell[data-stone]').count(), 1);
  assert.equal(await page.locator(`#replay-board .cell[data-cell="${moves[0]}"]`).getAttribute('data-stone'), 'first');
  assert.equal(await page.locator('#replay-moves button[data-ply="1"]').getAttribute('aria-current'), 'step');
  // The keys: right one move, Home to the start, End to the end; the buttons too.
  await page.keyboard.press('ArrowRight');
  assert.equal(await replay.getAttribute('data-ply'), '2');
  assert.equal(await page.locator(`#replay-board .cell[data-cell="${moves[1]}"]`).getAttribute('data-stone'), 'second');
  await page.keyboard.press('Home');
  assert.equal(await page.locator('#replay-board .cell[data-stone]').count(), 0);
  assert.equal(await page.locator('#replay-prev').isDisabled(), true);
  await page.keyboard.press('End');
  assert.equal(Number(await replay.getAttribute('data-ply')), plies);
  await page.locator('#replay-prev').click();
  assert.equal(Number(await replay.getAttribute('data-ply')), plies - 1);
  await page.locator('#replay-first').click();
  await page.locator('#replay-next').click();
  assert.equal(await replay.getAttribute('data-ply'), '1');

  await screenshot(page, 'replay-tictactoe');
  // Downloads: the text export (the server's own) and no .psq for tic-tac-toe.
  assert.equal(await page.locator('#replay-psq').isVisible(), false);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#replay-txt').click()]);
  assert.equal(download.suggestedFilename(), `${matchId}.txt`);
  const text = fs.readFileSync(await download.path(), 'utf8');
  const served = await fetch(`${base}/game/${matchId}.txt`);
  assert.equal(served.status, 200);
  assert.equal(served.headers.get('content-disposition'), `attachment; filename="${matchId}.txt"`);
  assert.equal(await served.text(), text);
  assert.match(text, new RegExp(`^Game: ${matchId}\\nVariant: tictactoe\\nFirst: rhea\\n`));
  assert.ok(text.includes(`\nPosition: ${moves.join('')}\n`), text);

  // The link opens the same replay in another browser.
  const link = await page.locator('#replay-link').inputValue();
  assert.equal(link, `${base}/game/${matchId}`);
  const friend = await newPlayer('sol', { url: link });
  const theirs = friend.locator('#replay-view');
  await theirs.waitFor();
  assert.equal(await theirs.getAttribute('data-match-id'), matchId);
  assert.equal(await friend.locator('#replay-board .cell[data-stone]').count(), plies);
  await friend.locator('#replay-back').click();
  await friend.locator('#lobby-view').waitFor();
  assert.equal(await friend.evaluate(() => location.pathname), '/');
  await page.locator('#replay-back').click();
  await page.locator('#lobby-view').waitFor();
  assertNoErrors(page);
  assertNoErrors(friend);
  await page.context().close();
  await friend.context().close();
});

test('an account: protect the name in one browser, sign in from another, the same rating', async () => {
  const first = await newPlayer('Quinn');
  await startBotGame(first, { variant: 'tictactoe' });
  await playToTheEnd(first);
  await first.locator('#leave').click();
  await first.locator('#lobby-view').waitFor();
  await first.locator('#new-password').fill('quinn plays well');
  await first.locator('#protect').click();
  await waitFor(first, () => /protected/.test(document.querySelector('#password-note').textContent));
  await first.locator('#my-profile').click();
  const rating = first.locator('#profile-ratings li[data-variant="tictactoe"]');
  await rating.waitFor();
  const seen = await rating.innerText();
  assert.match(seen, /^tictactoe: \d+ ±\d+ \(1 rated games\)$/);
  assert.equal(await first.locator('#profile-kind').innerText(), 'account');

  // Another browser context: no token; the name and the password sign in.
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const second = await context.newPage();
  second.errors = [];
  second.on('pageerror', (e) => second.errors.push(e));
  await second.goto(base + '/');
  await second.locator('#name').fill('quinn');
  await second.locator('#password').fill('wrong password');
  await second.locator('#enter').click();
  await waitFor(second, () => /wrong password/.test(document.querySelector('#name-error').textContent));
  await second.locator('#password').fill('quinn plays well');
  await second.locator('#enter').click();
  // Signed in, the new device is shown the game the player just finished
  // (it ended within the reconnect grace), as the first device would be.
  await waitFor(second, () => document.body.dataset.connection === 'connected');
  await gameView(second).waitFor();
  assert.equal(await second.locator('#game-view').getAttribute('data-turn'), 'over');
  await second.locator('#leave').click();
  await second.locator('#lobby-view').waitFor();
  assert.equal(await second.locator('#me').innerText(), 'Quinn');
  await second.locator('#my-profile').click();
  const there = second.locator('#profile-ratings li[data-variant="tictactoe"]');
  await there.waitFor();
  assert.equal(await there.innerText(), seen);
  // A new guest cannot take the name.
  const third = await browser.newContext();
  const guest = await third.newPage();
  await guest.goto(base + '/');
  await guest.locator('#name').fill('QUINN');
  await guest.locator('#enter').click();
  await waitFor(guest, () => /is an account's/.test(document.querySelector('#name-error').textContent));
  assertNoErrors(first);
  assertNoErrors(second);
  for (const page of [first, second, guest]) await page.context().close();
});
