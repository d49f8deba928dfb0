// The game history: "My games" in the lobby (newest first, a page at a
// time) and the replay of a finished game, move by move: a board, the moves
// in pairs to click, first/prev/next/last and the arrow keys, downloads of
// the game as text and (five in a row) as Piskvork's .psq, and its link,
// /game/<id>, which opens this replay.
import { renderBoard, variantTitle } from './board.js';

const $ = (sel) => document.querySelector(sel);

let hooks = null;       // {conn, me(), show(view), back(), flash(text)}
let record = null;      // the GameRecord on screen
let at = 0;             // plies shown
let nextCursor = '';    // the next page of My games
const urls = [];        // object URLs of the downloads, revoked when replaced

const RESULTS = {
  RESULT_FIRST_WINS: 'first',
  RESULT_SECOND_WINS: 'second',
  RESULT_DRAW: 'draw',
  RESULT_ABORTED: 'aborted',
};

// The game from `me`'s side: opponent, outcome, rating change.
function fromSide(game, me) {
  const seat = game.first?.id === me ? 0 : game.second?.id === me ? 1 : -1;
  const first = game.first || {}, second = game.second || {};
  const result = RESULTS[game.result] || '';
  let outcome;
  if (result === 'draw') outcome = 'Draw';
  else if (result === 'aborted') outcome = 'Aborted';
  else if (seat < 0) outcome = result === 'first' ? `${first.name} won` : `${second.name} won`;
  else outcome = (result === 'first') === (seat === 0) ? 'Won' : 'Lost';
  const opponent = seat === 1 ? first : seat === 0 ? second : null;
  let change = '';
  const r = (game.ratings || [])[Math.max(seat, 0)];
  if (r && seat >= 0) {
    const d = Math.round(r.after.rating) - Math.round(r.before.rating);
    change = d >= 0 ? `+${d}` : `${d}`;
  }
  const vs = opponent ? opponent.name : `${first.name} vs ${second.name}`;
  return { seat, outcome, vs, change };
}

export function initHistory(h) {
  hooks = h;
  $('#more-games').addEventListener('click', () => refreshMyGames(true));
  $('#replay-first').addEventListener('click', () => go(0));
  $('#replay-prev').addEventListener('click', () => go(at - 1));
  $('#replay-next').addEventListener('click', () => go(at + 1));
  $('#replay-last').addEventListener('click', () => go(Infinity));
  $('#replay-back').addEventListener('click', () => {
    record = null;
    if (location.pathname.startsWith('/game/')) history.replaceState(null, '', '/');
    hooks.back();
  });
  $('#replay-copy').addEventListener('click', async () => {
    const input = $('#replay-link');
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      hooks.flash('Link copied');
    } catch {
      document.execCommand?.('copy');
    }
  });
  $('#replay-moves').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-ply]');
    if (button) go(Number(button.dataset.ply));
  });
  document.addEventListener('keydown', (e) => {
    if ($('#replay-view').hidden || e.target.closest?.('input, select, textarea')) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: Infinity }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });
}

// One finished game as a list entry, from `me`'s side: a link that opens
// its replay, and the variant, rating change and date.
function gameItem(game, me) {
  const { outcome, vs, change } = fromSide(game, me);
  const li = document.createElement('li');
  const a = document.createElement('a');
  a.href = `/game/${encodeURIComponent(game.matchId)}`;
  a.dataset.matchId = game.matchId;
  const date = new Date(Number(game.endedMs));
  a.textContent = `${outcome} vs ${vs}`;
  const detail = document.createElement('span');
  detail.className = 'game-detail';
  detail.textContent = ` · ${variantTitle(game.variant)}${change ? ` · ${change}` : ''} · ${date.toLocaleString()}`;
  if (change) detail.dataset.change = change;
  a.addEventListener('click', (e) => {
    e.preventDefault();
    openReplay(game.matchId);
  });
  li.append(a, detail);
  return li;
}

// A player's latest finished games into `list` (a profile's recent games);
// their private games are left out by the server.
export async function showPlayerGames(list, playerId, limit = 5) {
  let answer;
  try {
    answer = await hooks.conn.request({ listGames: { playerId, limit } });
  } catch (e) {
    list.replaceChildren();
    return;
  }
  list.replaceChildren(...(answer.gameList.games || []).map((game) => gameItem(game, playerId)));
}

// The first page of My games, or the next one (more = true).
export async function refreshMyGames(more = false) {
  const me = hooks.me();
  if (!me) return;
  const list = $('#my-games');
  let answer;
  try {
    answer = await hooks.conn.request({ listGames: { limit: 10, before: more ? nextCursor : '' } });
  } catch (e) {
    return hooks.flash(e.message);
  }
  const games = answer.gameList.games || [];
  nextCursor = answer.gameList.next || '';
  const items = games.map((game) => gameItem(game, me.playerId));
  if (more) list.append(...items);
  else list.replaceChildren(...items);
  $('#no-games').hidden = list.children.length > 0;
  $('#more-games').hidden = !nextCursor;
}

// Opens the replay of a finished game (its end position first).
export async function openReplay(matchId) {
  let answer;
  try {
    answer = await hooks.conn.request({ getGame: { matchId } });
  } catch (e) {
    hooks.flash(e.message);
    return false;
  }
  record = answer.gameRecord;
  const game = record.game;
  const view = $('#replay-view');
  view.dataset.matchId = game.matchId;
  const first = game.first || {}, second = game.second || {};
  $('#replay-title').textContent = `${variantTitle(game.variant)}: ${first.name} vs ${second.name}`;
  const me = hooks.me();
  const { outcome, change } = fromSide(game, me?.playerId);
  $('#replay-result').textContent = `${outcome}${change ? ` (${change})` : ''} · ${new Date(Number(game.endedMs)).toLocaleString()}`;
  for (const u of urls.splice(0)) URL.revokeObjectURL(u);
  const download = (sel, text, name) => {
    const a = $(sel);
    a.hidden = !text;
    if (!text) return;
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    urls.push(url);
    a.href = url;
    a.download = name;
  };
  download('#replay-txt', record.text, `${game.matchId}.txt`);
  download('#replay-psq', record.psq, `${game.matchId}.psq`);
  $('#replay-link').value = `${location.origin}/game/${encodeURIComponent(game.matchId)}`;
  const moves = record.moves || [];
  const list = $('#replay-moves');
  list.replaceChildren();
  for (let i = 0; i < moves.length; i += 2) {
    const li = document.createElement('li');
    for (const m of moves.slice(i, i + 2)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'quiet';
      b.dataset.ply = String(m.ply);
      b.textContent = m.move;
      li.append(b);
    }
    list.append(li);
  }
  hooks.show('replay-view');
  at = moves.length;
  draw();
  $('#replay-board').focus({ preventScroll: true });
  return true;
}

function go(ply) {
  if (!record) return;
  const n = (record.moves || []).length;
  at = Math.max(0, Math.min(n, ply));
  draw();
}

function draw() {
  const moves = (record.moves || []).map((m) => m.move);
  const n = moves.length;
  $('#replay-view').dataset.ply = String(at);
  renderBoard($('#replay-board'), {
    variant: record.game.variant,
    title: `Replay of ${variantTitle(record.game.variant)}`,
    moves: moves.slice(0, at),
    playable: false,
    animateLast: false,
  });
  $('#replay-ply').textContent = at === 0 ? `Start of ${n} moves` : `Move ${at} of ${n}: ${moves[at - 1]}`;
  for (const b of $('#replay-moves').querySelectorAll('button[data-ply]')) {
    const current = Number(b.dataset.ply) === at;
    b.classList.toggle('current', current);
    if (current) b.setAttribute('aria-current', 'step');
    else b.removeAttribute('aria-current');
  }
  $('#replay-first').disabled = $('#replay-prev').disabled = at === 0;
  $('#replay-last').disabled = $('#replay-next').disabled = at === n;
}
