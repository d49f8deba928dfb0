// The inarow browser client: lobby, game and spectator views over one
// WebSocket. The page shows what the server says and sends what the player
// asks; whether a move is legal is for the server to answer.
import { Connection } from './connection.js';
import { parseVariant, renderBoard, boardStyle, columnName, cellName, variantTitle, swap2Allowed } from './board.js';
import {
  matchFromState, applyEvent, applyRematchEvent, clockLeft, timed, actingSide, placingStone,
} from './match.js';
import * as sound from './sound.js';
import * as seeks from './seeks.js';
import { initHistory, refreshMyGames, openReplay } from './history.js';
import { initAccount, welcomed, showBotStrength } from './account.js';

const $ = (sel) => document.querySelector(sel);
const store = {
  get token() { return localStorage.getItem('inarow.token'); },
  set token(v) { v ? localStorage.setItem('inarow.token', v) : localStorage.removeItem('inarow.token'); },
  // The last event seq seen per live match, to resume after a drop or reload.
  get cursors() { return JSON.parse(localStorage.getItem('inarow.cursors') || '{}'); },
  set cursors(v) { localStorage.setItem('inarow.cursors', JSON.stringify(v)); },
  get current() { return localStorage.getItem('inarow.current'); },
  set current(v) { v ? localStorage.setItem('inarow.current', v) : localStorage.removeItem('inarow.current'); },
};

const params = new URLSearchParams(location.search);
const playPath = /^\/play\/([^/]+)$/.exec(location.pathname);
let pendingJoin = playPath ? decodeURIComponent(playPath[1]) : params.get('join');
let pendingWatch = params.get('watch');
const replayPath = /^\/game\/([^/]+)$/.exec(location.pathname);
let pendingReplay = replayPath ? decodeURIComponent(replayPath[1]) : null;

const conn = new Connection(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
initAccount(conn, () => me);
let me = null;          // {playerId, name}
let game = null;        // the match on screen: a MatchState plus what events added
let watching = false;   // on screen as a spectator
let cursor = null;      // keyboard cursor on the board
let animateLast = false;
let seeking = false;
let everConnected = false;
let online = false;     // greeted on the current socket: requests may go
let lostTrack = '';     // why the watched game on screen no longer follows the server
let selected = null;    // touch screens: the cell tapped once (its name, the move), waiting for a confirming tap
let lowTimeWarned = ''; // the match whose low-time warning has sounded
let choiceSent = null;  // {matchId, seq}: an opening choice sent at that event, until it is answered

// Reconnecting backs off from half a second to five, one timer at a time.
const RECONNECT_BASE_MS = 500;
const RECONNECT_CAP_MS = 5000;
let reconnectDelay = RECONNECT_BASE_MS;
let reconnectTimer = 0;

// ---------------------------------------------------------------- connection

async function connect() {
  reconnectTimer = 0;
  setOnline(false);
  setStatus(everConnected ? 'Reconnecting…' : 'Connecting…', 'warn');
  try {
    await conn.connect();
  } catch {
    if (conn.socket) return;  // replaced by a newer attempt, which carries on
    return scheduleReconnect();
  }
  reconnectDelay = RECONNECT_BASE_MS;
  if (!store.token) {
    setStatus('');
    return showName();
  }
  await greet({ token: store.token });
}

// The only place a reconnect is planned: a second call while one is planned
// is a no-op, so a failure reported twice cannot start two sockets.
function scheduleReconnect() {
  setOnline(false);
  setStatus('Connection lost; reconnecting…', 'warn');
  if (reconnectTimer) return;
  reconnectTimer = setTimeout(connect, reconnectDelay);
  reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_CAP_MS);
}

conn.onClose = () => {
  seeking = false;
  scheduleReconnect();
};

// Whether the page may send: shown on <body data-connection> and by disabling
// the board and the game's buttons, so nothing looks playable while away.
function setOnline(value) {
  online = value;
  document.body.dataset.connection = value ? 'connected' : 'offline';
  if (game) draw();
}

// hello, with the token and the matches to resume when we have them.
async function greet(who) {
  const cursors = store.cursors;
  const resume = Object.entries(cursors).map(([matchId, lastSeq]) => ({ matchId, lastSeq: String(lastSeq) }));
  let answer;
  try {
    answer = await conn.request({ hello: { protocolVersion: 1, ...who, ...(who.token ? { resume } : {}) } });
  } catch (e) {
    if (e.code === 'ERROR_BAD_TOKEN') {
      store.token = null;  // the server forgot us (a fresh store): start again as a new player
      store.cursors = {};
      setStatus('');
      return showName();
    }
    const refusals = ['ERROR_BAD_REQUEST', 'ERROR_NAME_TAKEN', 'ERROR_WRONG_PASSWORD', 'ERROR_UNKNOWN_PLAYER', 'ERROR_RATE_LIMITED'];
    if (refusals.includes(e.code) && who.name !== undefined) {
      // The server refused the name (a control character, a bot's name…): say why on the form.
      showName();
      $('#name-error').textContent = e.message;
      $('#name-error').hidden = false;
      return;
    }
    if (!conn.open) return;  // the socket went while we waited: a reconnect is planned
    return setStatus(e.message, 'error');
  }
  const w = answer.welcome;
  everConnected = true;
  setOnline(true);
  if (w.token) store.token = w.token;
  localStorage.setItem('inarow.name', w.name);
  me = { playerId: w.playerId, name: w.name };
  welcomed(w);
  $('#me').textContent = w.name;
  setStatus('');
  // Forget cursors of matches the server no longer sends; a match that
  // ended while we were away (endedMatches) still gets its end.
  const live = new Set(w.matches || []);
  const coming = new Set([...live, ...(w.endedMatches || [])]);
  store.cursors = Object.fromEntries(Object.entries(store.cursors).filter(([id]) => coming.has(id)));
  if (pendingJoin) {
    const code = pendingJoin;
    pendingJoin = null;
    history.replaceState(null, '', '/');
    if (!(await run(() => conn.request({ joinPrivate: { code } })))) showLobby();
    return;
  }
  if (pendingReplay) {
    const matchId = pendingReplay;
    pendingReplay = null;
    if (await openReplay(matchId)) return;
    history.replaceState(null, '', '/');
  }
  if (pendingWatch) {
    const matchId = pendingWatch;
    pendingWatch = null;
    return watch(matchId);
  }
  if (watching && game) return resumeWatching();
  if (!$('#replay-view').hidden) return;  // a replay stays on screen across a reconnect
  // Back to the match on screen (its events and state are on their way), or
  // to any live match of ours, or to the lobby.
  const current = store.current;
  if (current && coming.has(current)) return;
  if (live.size) {
    store.current = [...live][0];
    return;
  }
  if (game && !game.result) game = null;
  if (!game) showLobby();
}

// Runs a request, showing its error if the server refuses.
async function run(request) {
  try {
    return await request();
  } catch (e) {
    flash(e.message);
    return null;
  }
}

// ---------------------------------------------------------------- server pushes

seeks.init({ conn, run, me: () => me, title: (v) => variantTitle(v), cancelled: () => seekCancelled() });

conn.onPush = (message) => {
  if (message.seekList) return seeks.onList(message.seekList);
  if (message.matchState) return onState(message.matchState);
  if (message.event) return onEvent(message.event);
  if (message.bye) setStatus(`Server: ${message.bye.reason || 'going away'}`, 'warn');
};

// A bot-vs-bot match we started: its state may come just before or after the ack.
let botMatch = null;
const unclaimedStates = new Map();

function onState(state) {
  const id = state.matchId;
  if (botMatch === id && (!game || game.matchId !== id)) {
    botMatch = null;
    return showGame(matchFromState(state), true);
  }
  const ours = state.yourSide || (me && (state.first?.id === me.playerId || state.second?.id === me.playerId));
  if (ours && !state.result) rememberSeq(id, state.lastSeq);
  if (game && game.matchId === id) {
    // The full state supersedes what we pieced together from events, except
    // what only events carry: the winning line, rating changes, presence.
    const keep = {
      winningLine: game.winningLine, ratings: game.ratings, presence: game.presence,
      rematchOfferedBy: game.rematchOfferedBy, rematchId: game.rematchId, openingNotes: game.openingNotes,
    };
    showGame({ ...matchFromState(state), ...keep }, watching);
    return;
  }
  if (ours && !watching && (store.current === id || !game)) {
    store.current = id;
    showGame(matchFromState(state), false);
    return;
  }
  unclaimedStates.set(id, state);
}

function onEvent(event) {
  const id = event.matchId;
  const seq = Number(event.seq);
  if (event.spectators) {  // unnumbered news, not the game
    if (game && game.matchId === id) {
      game.spectators = event.spectators.count || 0;
      draw();
    }
    return;
  }
  if (event.started) {
    const state = event.started.state;
    const ours = me && (state.first?.id === me.playerId || state.second?.id === me.playerId);
    if (ours) {
      rememberSeq(id, seq);
      if (!game || game.result || game.matchId === id || watching) {
        if (watching) stopWatching();
        store.current = id;
        seeking = false;
        setStatus('');
        showGame(matchFromState({ ...state, lastSeq: String(seq) }), false);
        sound.play('start');
        const side = mySide();
        const opponent = side === 'SIDE_FIRST' ? game.second : game.first;
        if (game.opening) {
          announce(`Game started against ${opponent.name || 'your opponent'}, with the swap2 opening. ${openingText()}.`);
        } else {
          announce(`Game started: you play ${spokenPiece(game.variant, side)} against ${opponent.name || 'your opponent'}`
            + (side === game.toMove ? '; your move.' : '.'));
        }
      }
    }
    return;
  }
  if (!game || game.matchId !== id) {
    if (store.cursors[id] !== undefined) rememberSeq(id, seq);
    return;
  }
  const rematch = applyRematchEvent(game, event);
  if (rematch) {
    if (rematch.rematch === 'offered' && rematch.by !== mySide()) announce(`${sideName(rematch.by)} offers a rematch.`);
    if (rematch.rematch === 'declined' && rematch.by !== mySide()) flash(`${sideName(rematch.by)} declined the rematch`);
    if (rematch.rematch === 'lapsed' && rematch.by !== mySide()) flash(`${sideName(rematch.by)} left: no rematch`);
    if (rematch.rematch === 'started' && watching) announce('The players began a rematch.');
    return draw();
  }
  if (seq <= game.lastSeq) return;  // a replay we already have
  const told = applyEvent(game, event);
  animateLast = Boolean(told.moved);
  if (told.declined) flash(`${sideName(told.by)} declined the ${told.declined}`);
  if (told.moved) {
    selected = null;
    sound.play('move');
    // Our own moves are heard as the click that made them; the others' are
    // told. In an opening one player may place either colour: `by` placed it.
    if (watching || told.by !== mySide()) {
      announce(`${sideName(told.by)} (${spokenPiece(game.variant, told.side)}) played ${told.move}${turnPrompt()}`);
    }
  }
  if (told.chosen) {
    const note = choiceText(told.chosen);
    game.openingNotes.push(note);
    announce(note + turnPrompt());
  }
  if (told.ended) {
    sound.play('end');
    announce(resultText());
  }
  if (game.result) forgetSeq(id);
  else if (!watching) rememberSeq(id, seq);
  draw();
}

function rememberSeq(id, seq) {
  const cursors = store.cursors;
  cursors[id] = Math.max(Number(seq), Number(cursors[id] || 0));
  store.cursors = cursors;
}

function forgetSeq(id) {
  const cursors = store.cursors;
  delete cursors[id];
  store.cursors = cursors;
}

// ---------------------------------------------------------------- clocks

function formatClock(ms) {
  const total = Math.ceil(ms / 100) / 10;
  const min = Math.floor(total / 60);
  const sec = total - min * 60;
  if (total < 10) return `0:0${sec.toFixed(1)}`;
  return `${min}:${String(Math.floor(sec)).padStart(2, '0')}`;
}

function tickClocks() {
  if (game && timed(game)) {
    for (const side of ['SIDE_FIRST', 'SIDE_SECOND']) {
      const node = $(`#game-view .player[data-side="${side}"] .clock`);
      const left = clockLeft(game, side);
      node.textContent = formatClock(left);
      node.classList.toggle('low', left < 10000);
      node.classList.toggle('running', game.clocks.running === side && !game.result);
    }
    // One warning a game when our own clock runs low.
    const side = mySide();
    if (side && !game.result && game.clocks.running === side && clockLeft(game, side) < 10000
        && lowTimeWarned !== game.matchId) {
      lowTimeWarned = game.matchId;
      sound.play('low');
      announce('Ten seconds left.');
    }
  }
  requestAnimationFrame(tickClocks);
}
requestAnimationFrame(tickClocks);

// ---------------------------------------------------------------- views

function show(view) {
  for (const id of ['name-view', 'lobby-view', 'game-view', 'replay-view']) $(`#${id}`).hidden = id !== view;
  if (view !== 'lobby-view') seeks.unfollow();
}

function showName() {
  show('name-view');
  $('#join-hint').hidden = !pendingJoin;
  const input = $('#name');
  input.value = input.value || localStorage.getItem('inarow.name') || '';
  $('#name-error').hidden = true;
  input.focus();
}

function showLobby() {
  game = null;
  document.title = 'inarow';
  watching = false;
  store.current = null;
  show('lobby-view');
  $('#seek').hidden = seeking;
  $('#cancel-seek').hidden = !seeking;
  refreshMatches();
  if (online && me) seeks.follow();
  refreshMyGames();
  botStrength();
}

function showGame(state, asSpectator) {
  const fresh = !game || game.matchId !== state.matchId || $('#game-view').hidden;
  game = state;
  lostTrack = '';
  watching = asSpectator;
  if (!asSpectator) store.current = state.matchId;
  cursor = null;
  selected = null;
  animateLast = false;
  $('#private-link').hidden = true;
  show('game-view');
  draw();
  // The button that started the game is gone from view; without this the
  // focus falls to the page and the keyboard has nowhere to play.
  if (fresh) $('#board').focus({ preventScroll: true });
}

function mySide() {
  if (!game || watching || !me) return null;
  if (game.yourSide) return game.yourSide;
  if (game.first.id === me.playerId) return 'SIDE_FIRST';
  if (game.second.id === me.playerId) return 'SIDE_SECOND';
  return null;
}

const other = (side) => (side === 'SIDE_FIRST' ? 'SIDE_SECOND' : 'SIDE_FIRST');

function sideName(side) {
  if (!game) return '';
  if (side === mySide()) return 'You';
  return (side === 'SIDE_FIRST' ? game.first.name : game.second.name) || 'Opponent';
}

function pieceName(variant, side) {
  const v = parseVariant(variant);
  const style = v ? boardStyle(v) : 'marks';
  const first = side === 'SIDE_FIRST';
  if (style === 'marks') return first ? '×' : '○';
  if (style === 'discs') return first ? 'red' : 'yellow';
  return first ? 'black' : 'white';
}

// The piece in words, for a screen reader: "cross", not "×".
function spokenPiece(variant, side) {
  const piece = pieceName(variant, side);
  return piece === '×' ? 'cross' : piece === '○' ? 'nought' : piece;
}

// Our turn to act: a stone, or during an opening maybe a choice.
// Not once the last stone decided the game: the server sends its end as the
// next event, and until then the board is nobody's to play.
function myTurn() {
  return game && !game.result && !game.decided && mySide() === actingSide(game);
}

// Our turn to place a stone and a connection to send it on.
function canPlay() {
  return online && myTurn() && placingStone(game);
}

// Our turn to make an opening choice (buttons, not the board).
function myChoice() {
  return myTurn() && !placingStone(game);
}

// What follows an announced move or choice: whether we act now, and how.
function turnPrompt() {
  if (!myTurn()) return '.';
  return game.opening ? `. ${openingText()}.` : '. Your move.';
}

// A side's colour in words, for the opening: "black" and "white" on a goban
// (X and O on a small grid).
function colourWord(side) {
  const piece = pieceName(game.variant, side);
  return piece === '×' ? 'X' : piece === '○' ? 'O' : piece;
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// What the opening asks now, in words: of us when it is our turn, else who
// is doing what (a spectator's view too).
function openingText() {
  const o = game.opening;
  const [b, w] = [colourWord('SIDE_FIRST'), colourWord('SIDE_SECOND')];
  const n = game.moves.length;
  const mine = !watching && mySide() === o.toAct;
  const who = sideName(o.toAct);
  switch (o.step) {
    case 'OPENING_STEP_PLACE_THREE':
      return mine ? `Place three stones: ${b}, ${w}, ${b} (${n + 1} of 3)`
        : `${who} is placing the opening stones (${n + 1} of 3)`;
    case 'OPENING_STEP_CHOOSE':
      return mine ? `Choose: play ${b}, play ${w}, or place two more stones`
        : `${who} is choosing: play ${b}, play ${w}, or place two more stones`;
    case 'OPENING_STEP_PLACE_TWO':
      return mine ? `Place two more stones: ${w}, then ${b} (${n - 2} of 2)`
        : `${who} is placing two more stones: ${w}, then ${b} (${n - 2} of 2)`;
    case 'OPENING_STEP_CHOOSE_SIDE':
      return mine ? `Choose your colour: ${b} or ${w}` : `${who} is choosing a colour`;
    default:
      return '';
  }
}

// An opening choice in words, once applied: the chooser holds the side they
// took (or, placing two more, still their own).
function choiceText({ by, side, placeTwo }) {
  const who = sideName(side || by);
  return placeTwo ? `${who} chose to place two more stones` : `${who} took ${colourWord(side)}`;
}

const OPENING_STEPS = {
  OPENING_STEP_PLACE_THREE: 'place-three',
  OPENING_STEP_CHOOSE: 'choose',
  OPENING_STEP_PLACE_TWO: 'place-two',
  OPENING_STEP_CHOOSE_SIDE: 'choose-side',
};

// A takeback undoes our last move, so there must be one: the first player has
// moved after one ply, the second after two.
function haveMoved(side) {
  return game.moves.length >= (side === 'SIDE_SECOND' ? 2 : 1);
}

// A player's rating as it now stands: the ended event's figure after the game
// once there is one, else the one the match started with.
function currentRating(player) {
  const change = (game.ratings || []).find((c) => c.playerId === player.id);
  return change?.after || player.rating;
}

function draw() {
  if (!game) return;
  const view = $('#game-view');
  const side = mySide();
  view.dataset.matchId = game.matchId;
  view.dataset.variant = game.variant;
  view.dataset.ply = game.moves.length;
  view.dataset.role = watching ? 'spectator' : 'player';
  view.dataset.turn = game.result ? 'over' : myTurn() ? 'me' : 'them';
  view.dataset.result = game.result || '';
  view.dataset.opening = (!game.result && game.opening && OPENING_STEPS[game.opening.step]) || '';

  for (const s of ['SIDE_FIRST', 'SIDE_SECOND']) {
    const p = s === 'SIDE_FIRST' ? game.first : game.second;
    const node = $(`#game-view .player[data-side="${s}"]`);
    node.querySelector('.piece').className = `piece piece-${boardStyle(parseVariant(game.variant) || { width: 3, height: 3 })} ${s === 'SIDE_FIRST' ? 'first' : 'second'}`;
    node.querySelector('.name').textContent = (p.name || '?') + (s === side ? ' (you)' : '');
    const rating = currentRating(p);
    node.querySelector('.rating').textContent = rating ? Math.round(rating.rating ?? 1500) : '';
    node.querySelector('.away').hidden = game.presence[s] !== false || Boolean(p.bot);
    node.classList.toggle('to-move', !game.result && !game.decided && actingSide(game) === s);
    const clock = node.querySelector('.clock');
    clock.hidden = !timed(game);
  }

  view.classList.toggle('offline', !online);
  $('#board').classList.toggle('playable', canPlay());
  $('#board').setAttribute('aria-disabled', String(!online));
  if (!canPlay()) selected = null;
  renderBoard($('#board'), {
    variant: game.variant,
    title: variantTitle(game.variant),
    moves: game.moves,
    winningLine: game.winningLine,
    playable: canPlay(),
    // The preview is the colour of the stone we would place: in an opening not always our side's.
    mySide: (canPlay() ? game.toMove : side) === 'SIDE_SECOND' ? 2 : 1,
    pieceNames: [spokenPiece(game.variant, 'SIDE_FIRST'), spokenPiece(game.variant, 'SIDE_SECOND')],
    cursor: canPlay() ? cursor : null,
    selected,
    animateLast,
    onPlay: tapOrPlay,
  });
  $('#confirm-move').hidden = !selected;
  if (selected) $('#confirm-play').textContent = `Play ${selected}`;
  animateLast = false;

  const status = $('#game-status');
  if (game.result) status.textContent = resultText();
  else if (game.decided) status.textContent = 'The game is over.';
  else if (game.opening) status.textContent = openingText();
  else if (watching) status.textContent = `${sideName(game.toMove)} to move (${pieceName(game.variant, game.toMove)})`;
  else status.textContent = myTurn() ? `Your move (${pieceName(game.variant, side)})` : `Waiting for ${sideName(game.toMove)}…`;
  status.classList.toggle('your-turn', myTurn());
  document.title = myTurn() ? `● Your ${myChoice() ? 'choice' : 'move'} · inarow`
    : game.result ? `${resultText()} · inarow` : 'inarow';

  // The opening's choices: a side, or (the first time) two more stones.
  const choice = $('#opening-choice');
  const choosing = !watching && myChoice();
  if (choosing) {
    const [b, w] = [colourWord('SIDE_FIRST'), colourWord('SIDE_SECOND')];
    const black = Math.ceil(game.moves.length / 2), white = game.moves.length - black;
    const stones = (k) => `${k} stone${k === 1 ? '' : 's'}`;
    $('#opening-hint').textContent = `${capital(b)} has ${stones(black)}, ${w} ${stones(white)}; `
      + `${game.toMove === 'SIDE_FIRST' ? b : w} plays next.`;
    $('#choose-first').textContent = `Play ${b}`;
    $('#choose-second').textContent = `Play ${w}`;
    $('#choose-place-two').hidden = game.opening.step !== 'OPENING_STEP_CHOOSE';
    // While a choice is on its way the buttons say so but keep the focus (a disabled one would drop it).
    for (const id of ['#choose-first', '#choose-second', '#choose-place-two']) {
      $(id).disabled = !online;
      $(id).setAttribute('aria-disabled', String(choiceWaiting()));
    }
  }
  // A choice made with the keyboard leaves the focus on the board, not lost with its button.
  const focusInChoice = choice.contains(document.activeElement);
  choice.hidden = !choosing;
  if (focusInChoice && !choosing) $('#board').focus({ preventScroll: true });
  const notes = game.openingNotes || [];
  $('#opening-note').textContent = notes.length ? `${notes.join('. ')}.` : '';

  const playing = !watching && side && !game.result;
  $('#resign').hidden = !playing;
  $('#offer-draw').hidden = !playing || game.drawOfferedBy === side;
  // Neither a draw nor a takeback while the opening is being bargained.
  const inOpening = Boolean(game.opening);
  $('#offer-draw').disabled = !online || Boolean(game.drawOfferedBy) || inOpening;
  $('#takeback').hidden = !playing || !haveMoved(side);
  $('#takeback').disabled = !online || Boolean(game.takebackRequestedBy) || inOpening;
  for (const id of ['#offer-draw', '#takeback']) $(id).title = inOpening ? 'Not during the opening' : '';
  $('#resign').disabled = !online;
  for (const id of ['#accept-draw', '#decline-draw', '#accept-takeback', '#decline-takeback']) $(id).disabled = !online;
  $('#draw-answer').hidden = !playing || !game.drawOfferedBy || game.drawOfferedBy === side;
  $('#takeback-answer').hidden = !playing || !game.takebackRequestedBy || game.takebackRequestedBy === side;
  const pending = [];
  if (game.drawOfferedBy === side && playing) pending.push('Draw offered; waiting for an answer.');
  if (game.takebackRequestedBy === side && playing) pending.push('Takeback asked; waiting for an answer.');
  if (watching && game.drawOfferedBy) pending.push(`${sideName(game.drawOfferedBy)} offers a draw.`);
  if (watching && lostTrack) pending.push(lostTrack);
  if (!online && !game.result) pending.push('Not connected: the board waits until we are back.');
  if (!watching && game.result && side && game.rematchOfferedBy === side && !game.rematchId) {
    pending.push('Rematch offered; waiting for an answer.');
  }
  $('#pending').textContent = pending.join(' ');
  // A player leaves a live game by finishing or resigning it, not by wandering off.
  $('#leave').textContent = watching ? 'Stop watching' : 'Back to the lobby';
  $('#leave').hidden = Boolean(playing);
  $('#replay-game').hidden = !game.result;
  $('#draw-offerer').textContent = `${sideName(game.drawOfferedBy)} offers a draw.`;
  // After the end: a rematch, sides swapped; an offer to answer; or for a
  // spectator the way into the rematch the players began.
  const over = Boolean(game.result);
  const offeredToMe = game.rematchOfferedBy && game.rematchOfferedBy !== side;
  $('#rematch').hidden = watching || !side || !over || Boolean(game.rematchId) || Boolean(offeredToMe);
  $('#rematch').disabled = !online || game.rematchOfferedBy === side;
  $('#rematch-answer').hidden = watching || !over || !offeredToMe || Boolean(game.rematchId);
  $('#rematch-offerer').textContent = `${sideName(game.rematchOfferedBy)} offers a rematch, sides swapped.`;
  for (const id of ['#accept-rematch', '#decline-rematch']) $(id).disabled = !online;
  $('#follow-rematch').hidden = !watching || !game.rematchId;

  $('#takeback-asker').textContent = `${sideName(game.takebackRequestedBy)} asks to take a move back.`;

  const result = $('#result');
  result.hidden = !game.result;
  if (game.result) result.replaceChildren(...ratingLines());

  // The moves in pairs, as players write them: "1. h8 i9  2. …".
  const list = $('#moves');
  const pairs = [];
  for (let i = 0; i < game.moves.length; i += 2) {
    const li = document.createElement('li');
    const n = document.createElement('span');
    n.className = 'num';
    n.textContent = `${i / 2 + 1}.`;
    li.append(n);
    for (const ply of [i, i + 1]) {
      if (ply >= game.moves.length) break;
      const m = document.createElement('span');
      m.className = 'move';
      m.dataset.ply = ply + 1;
      m.textContent = game.moves[ply];
      if (ply === game.moves.length - 1) m.classList.add('last');
      li.append(m);
    }
    pairs.push(li);
  }
  list.replaceChildren(...pairs);
  list.scrollTop = list.scrollHeight;
  $('#variant-name').textContent = variantTitle(game.variant) + (game.rated ? ' · rated' : '');
  $('#watchers').textContent = game.spectators ? `${game.spectators} watching` : '';
}

const reasons = {
  END_REASON_BOARD_FULL: 'board full',
  END_REASON_RESIGNATION: 'resignation',
  END_REASON_AGREEMENT: 'agreed draw',
  END_REASON_TIMEOUT: 'time',
  END_REASON_ABANDONED: 'abandoned',
  END_REASON_SHUTDOWN: 'server shutdown',
};

function resultText() {
  const reason = game.endReason === 'END_REASON_LINE'
    ? `${parseVariant(game.variant)?.k ?? ''} in a row`
    : reasons[game.endReason] || '';
  const side = mySide();
  let text;
  if (game.result === 'RESULT_DRAW') text = 'Draw';
  else if (game.result === 'RESULT_ABORTED') text = 'Aborted';
  else {
    const winner = game.result === 'RESULT_FIRST_WINS' ? 'SIDE_FIRST' : 'SIDE_SECOND';
    if (side) text = winner === side ? 'You won' : 'You lost';
    else text = `${sideName(winner)} won`;
  }
  return reason ? `${text} · ${reason}` : text;
}

function ratingLines() {
  const lines = [];
  const h = document.createElement('strong');
  h.textContent = resultText();
  lines.push(h);
  for (const change of game.ratings || []) {
    const who = change.playerId === game.first.id ? game.first : game.second;
    const before = change.before?.rating ?? 1500;
    const after = change.after?.rating ?? 1500;
    const delta = Math.round(after) - Math.round(before);
    const line = document.createElement('div');
    line.className = 'rating-change';
    line.dataset.playerId = change.playerId;
    line.textContent = `${who.name || change.playerId}${change.playerId === me?.playerId ? ' (you)' : ''}: ${Math.round(before)} → ${Math.round(after)} (${delta >= 0 ? '+' : ''}${delta})`;
    lines.push(line);
  }
  if (!game.rated) {
    const line = document.createElement('div');
    line.textContent = 'Unrated game';
    lines.push(line);
  }
  return lines;
}

// ---------------------------------------------------------------- actions

async function play(move) {
  if (!game || !online) return;
  selected = null;
  await run(() => conn.request({ move: { matchId: game.matchId, move } }));
}

// A finger is too blunt for a board whose cells are smaller than a touch
// target (gomoku's are 23 px on a phone): on a touch screen the first tap
// places a preview and a second tap, on the cell or on "Play h8", plays it.
const TOUCH_TARGET_PX = 44;
const coarsePointer = window.matchMedia('(pointer: coarse)');

function cellPixels() {
  const hit = $('#board .cell .hit');
  return hit ? hit.getBoundingClientRect().width : Infinity;
}

// Under gravity the target is a whole column, tall enough for a finger;
// elsewhere a move is its cell's name.
function tapOrPlay(move, cell) {
  const small = !parseVariant(game.variant)?.gravity && cellPixels() < TOUCH_TARGET_PX;
  if (!coarsePointer.matches || !small || selected === cell) {
    return play(move);
  }
  selected = cell;
  draw();
}

$('#confirm-play').addEventListener('click', () => { if (selected) play(selected); });

// An opening choice: {side} or {placeTwo: true}. The buttons wait for its
// event (or the refusal) so that one click sends one choice.
function choiceWaiting() {
  return choiceSent !== null && choiceSent.matchId === game.matchId && choiceSent.seq === game.lastSeq;
}

async function chooseOpening(choice) {
  if (!game || !online || !myChoice() || choiceWaiting()) return;
  const matchId = game.matchId;
  const sent = { matchId, seq: game.lastSeq };
  choiceSent = sent;
  draw();
  const answer = await run(() => conn.request({ chooseOpening: { matchId, ...choice } }));
  if (!answer && choiceSent === sent) {
    choiceSent = null;
    if (game && game.matchId === matchId) draw();
  }
}
$('#choose-first').addEventListener('click', () => chooseOpening({ side: 'SIDE_FIRST' }));
$('#choose-second').addEventListener('click', () => chooseOpening({ side: 'SIDE_SECOND' }));
$('#choose-place-two').addEventListener('click', () => chooseOpening({ placeTwo: true }));
$('#confirm-cancel').addEventListener('click', () => {
  selected = null;
  draw();
});

function timeControl() {
  const [initial, increment] = $('#time').value.split('+').map(Number);
  return initial ? { initialMs: String(initial * 60000), incrementMs: String(increment * 1000) } : {};
}

function variantChoice() {
  const choice = $('#variant').value;
  if (choice !== 'custom') return choice;
  const [m, n, k] = ['#m', '#n', '#k'].map((s) => Number($(s).value));
  const swap2 = $('#swap2').checked && !$('#swap2').disabled;
  return `mnk:${m},${n},${k}${$('#gravity').checked ? ',gravity' : ''}${$('#exact').checked ? ',exact' : ''}`
    + (swap2 ? ',swap2' : '');
}

// swap2 is offered only for a board it can open (the server's rule).
function updateSwap2() {
  const [width, height, k] = ['#m', '#n', '#k'].map((s) => Number($(s).value));
  const allowed = swap2Allowed({ width, height, k, gravity: $('#gravity').checked });
  $('#swap2').disabled = !allowed;
  if (!allowed) $('#swap2').checked = false;
  $('#swap2-label').classList.toggle('disabled', !allowed);
}
for (const id of ['#m', '#n', '#k', '#gravity']) {
  $(id).addEventListener('input', updateSwap2);
  $(id).addEventListener('change', updateSwap2);
}
updateSwap2();

// The input's `required` lets a name of spaces through; the server would
// refuse it, so the form says so at once.
$('#name-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const name = $('#name').value.trim();
  const error = $('#name-error');
  error.hidden = Boolean(name);
  if (!name) {
    error.textContent = 'Type a name: it cannot be only spaces.';
    return $('#name').focus();
  }
  if (online) return;  // already greeted (a second click): hello is said once
  if (!conn.open) {
    // No second socket here: the planned reconnect comes back to this form.
    error.textContent = 'Not connected to the server yet; trying again…';
    error.hidden = false;
    return;
  }
  const password = $('#password').value;
  $('#password').value = '';
  await greet(password ? { name, password } : { name });
});

$('#variant').addEventListener('change', () => {
  $('#custom').hidden = $('#variant').value !== 'custom';
});

const botStrength = () => online && showBotStrength($('#level').value, variantChoice());
for (const id of ['#variant', '#level', '#m', '#n', '#k', '#gravity', '#exact', '#swap2']) {
  $(id).addEventListener('change', botStrength);
}

$('#play-bot').addEventListener('click', () =>
  run(() => conn.request({
    playBot: { variant: variantChoice(), level: $('#level').value, side: $('#side').value, timeControl: timeControl() },
  })));

$('#seek').addEventListener('click', async () => {
  const seek = { variant: variantChoice(), timeControl: timeControl(), rated: $('#rated').checked };
  if (await run(() => conn.request({ seek }))) {
    seeking = true;
    $('#seek').hidden = true;
    $('#cancel-seek').hidden = false;
    setStatus('Looking for an opponent…');
  }
});

$('#cancel-seek').addEventListener('click', async () => {
  await run(() => conn.request({ cancelSeek: {} }));
  seekCancelled();
});

function seekCancelled() {
  seeking = false;
  $('#seek').hidden = false;
  $('#cancel-seek').hidden = true;
  setStatus('');
}

$('#create-private').addEventListener('click', async () => {
  const answer = await run(() => conn.request({
    createPrivate: { variant: variantChoice(), timeControl: timeControl(), side: $('#side').value, rated: $('#rated').checked },
  }));
  if (!answer) return;
  const link = `${location.origin}/play/${encodeURIComponent(answer.ack.code)}`;
  $('#private-url').value = link;
  $('#private-code').textContent = answer.ack.code;
  $('#private-link').hidden = false;
});

$('#copy-link').addEventListener('click', async () => {
  $('#private-url').select();
  try {
    await navigator.clipboard.writeText($('#private-url').value);
    flash('Link copied');
  } catch {
    document.execCommand?.('copy');
  }
});

$('#join-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const code = $('#join-code').value.trim();
  if (code) run(() => conn.request({ joinPrivate: { code } }));
});

$('#refresh').addEventListener('click', refreshMatches);

// Any two levels may play each other; the choices are the player's bot levels.
for (const [id, level] of [['#bot-first', 'easy'], ['#bot-second', 'medium']]) {
  $(id).replaceChildren(...[...$('#level').options].map((o) => new Option(o.text, o.value, false, o.value === level)));
}

$('#bot-match').addEventListener('click', async () => {
  const answer = await run(() => conn.request({
    startBotMatch: {
      variant: variantChoice(), firstLevel: $('#bot-first').value, secondLevel: $('#bot-second').value,
      timeControl: timeControl(),
    },
  }));
  if (!answer) return;
  const id = answer.ack.matchId;
  history.replaceState(null, '', `/?watch=${id}`);
  const state = unclaimedStates.get(id);
  if (state) showGame(matchFromState(state), true);
  else botMatch = id;
});

async function refreshMatches() {
  if (!online || !me) return;
  const answer = await run(() => conn.request({ listMatches: {} }));
  const list = $('#matches');
  const matches = answer?.matchList?.matches || [];
  list.replaceChildren(...matches.map((m) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/?watch=${encodeURIComponent(m.matchId)}`;
    a.dataset.matchId = m.matchId;
    a.textContent = `${m.first?.name ?? '?'} vs ${m.second?.name ?? '?'} · ${variantTitle(m.variant)} · move ${m.ply || 0}`
      + (m.spectators ? ` · ${m.spectators} watching` : '');
    a.addEventListener('click', (e) => {
      e.preventDefault();
      history.replaceState(null, '', a.href);
      watch(m.matchId);
    });
    li.appendChild(a);
    return li;
  }));
  $('#no-matches').hidden = matches.length > 0;
}
setInterval(() => { if (!$('#lobby-view').hidden) refreshMatches(); }, 5000);

async function watch(matchId, afterSeq = 0) {
  watching = true;
  if (!game || game.matchId !== matchId) game = null;
  const answer = await run(() => conn.request({ watch: { matchId, afterSeq: String(afterSeq) } }));
  if (!answer) return showLobby();
  if (!game && answer.matchState) showGame(matchFromState(answer.matchState), true);
}

// After a reconnect (or a server restart, which keeps live matches) a
// spectator asks for the same match again, from the last event it saw. A
// finished game stays on screen as it ended; a match the server no longer
// has stays too, with a note saying why it stopped moving, rather than
// dropping the spectator in the lobby without a word.
async function resumeWatching() {
  if (game.result) return;
  const matchId = game.matchId;
  try {
    await conn.request({ watch: { matchId, afterSeq: String(game.lastSeq) } });
  } catch (e) {
    if (!conn.open || !game || game.matchId !== matchId) return;  // dropped again, or moved on
    lostTrack = e.code === 'ERROR_UNKNOWN_MATCH'
      ? 'The server no longer has this game live (it may have ended while we were away): it is shown as we last saw it.'
      : `Cannot follow this game any more: ${e.message}`;
    draw();
  }
}

function stopWatching() {
  if (game && watching && conn.open) conn.request({ unwatch: { matchId: game.matchId } }).catch(() => {});
  history.replaceState(null, '', '/');
}

$('#leave').addEventListener('click', () => {
  if (watching) stopWatching();
  showLobby();
});
$('#resign').addEventListener('click', () => {
  if (confirmResign()) run(() => conn.request({ resign: { matchId: game.matchId } }));
});
$('#offer-draw').addEventListener('click', () => run(() => conn.request({ offerDraw: { matchId: game.matchId } })));
$('#takeback').addEventListener('click', () => run(() => conn.request({ requestTakeback: { matchId: game.matchId } })));
$('#accept-draw').addEventListener('click', () => run(() => conn.request({ answerDraw: { matchId: game.matchId, accept: true } })));
$('#decline-draw').addEventListener('click', () => run(() => conn.request({ answerDraw: { matchId: game.matchId, accept: false } })));
$('#accept-takeback').addEventListener('click', () => run(() => conn.request({ answerTakeback: { matchId: game.matchId, accept: true } })));
$('#decline-takeback').addEventListener('click', () => run(() => conn.request({ answerTakeback: { matchId: game.matchId, accept: false } })));
// A rematch: against a bot it starts at once (its `started` event shows it);
// to a person it is an offer, and their own rematch accepts ours.
const askRematch = () => run(() => conn.request({ rematch: { matchId: game.matchId } }));
$('#rematch').addEventListener('click', askRematch);
$('#accept-rematch').addEventListener('click', askRematch);
$('#decline-rematch').addEventListener('click', () => run(() => conn.request({ rematch: { matchId: game.matchId, decline: true } })));
$('#follow-rematch').addEventListener('click', () => {
  const next = game.rematchId;
  stopWatching();
  history.replaceState(null, '', `/?watch=${encodeURIComponent(next)}`);
  watch(next);
});

// Resigning is a second click within three seconds, not a dialog.
let resignArmed = 0;
function confirmResign() {
  const now = Date.now();
  if (now - resignArmed < 3000) return true;
  resignArmed = now;
  $('#resign').textContent = 'Really resign?';
  setTimeout(() => { $('#resign').textContent = 'Resign'; }, 3000);
  return false;
}

// The keyboard cursor starts on the middle cell.
const centre = (v) => ({ col: Math.floor(v.width / 2), row: Math.floor(v.height / 2) });

// Keyboard: arrows move a cursor over the board, Enter or Space plays it;
// under gravity the digits name columns directly.
$('#board').addEventListener('keydown', (e) => {
  if (!game || !canPlay()) return;
  const v = parseVariant(game.variant);
  if (!v) return;
  if (!cursor) cursor = centre(v);
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  if (moves[e.key]) {
    const [dc, dr] = moves[e.key];
    cursor = {
      col: Math.min(v.width - 1, Math.max(0, cursor.col + dc)),
      row: Math.min(v.height - 1, Math.max(0, cursor.row + dr)),
    };
    e.preventDefault();
    return draw();
  }
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    const move = v.gravity ? columnName(v, cursor.col) : cellName(cursor.col, cursor.row);
    return play(move);
  }
  if (v.gravity && /^[1-9]$/.test(e.key) && Number(e.key) <= v.width && v.width <= 9) {
    cursor = { col: Number(e.key) - 1, row: 0 };
    return play(e.key);
  }
});
$('#board').addEventListener('focus', () => {
  // Only keyboard focus shows the cursor: redrawing under a mouse press would eat its click.
  if (!$('#board').matches(':focus-visible')) return;
  if (!cursor && game && canPlay()) {
    cursor = centre(parseVariant(game.variant));
    draw();
  }
});

// ---------------------------------------------------------------- messages

// What a screen reader says without the player looking: the opponent's move,
// the start and the end. The region is visually hidden.
function announce(text) {
  const node = $('#announce');
  // The same words twice in a row are still said: clear, then set.
  node.textContent = '';
  requestAnimationFrame(() => { node.textContent = text; });
}

function showMuted() {
  const isMuted = sound.muted();
  $('#mute').setAttribute('aria-pressed', String(isMuted));
  // The name stays "Mute sounds" (aria-pressed says whether); the text shows the state.
  $('#mute').textContent = isMuted ? 'Muted' : 'Sound';
  $('#mute').title = isMuted ? 'Sounds are off: click to turn them on' : 'Click to mute the sounds';
}
$('#mute').addEventListener('click', () => {
  sound.setMuted(!sound.muted());
  showMuted();
});
showMuted();
// Audio may start only after the player has touched the page.
for (const kind of ['pointerdown', 'keydown']) document.addEventListener(kind, sound.unlock, { capture: true });

function setStatus(text, kind = '') {
  const node = $('#status');
  node.textContent = text;
  node.className = kind;
}

let flashTimer = 0;
function flash(text) {
  const node = $('#flash');
  node.textContent = text;
  node.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { node.hidden = true; }, 4000);
}

$('#replay-game').addEventListener('click', () => openReplay(game.matchId));
initHistory({ conn, me: () => me, show, back: showLobby, flash });

// For the console and the tests: the live connection.
window.inarow = { conn, sounds: sound.played };

connect();
