// Accounts on the page: protect one's name with a password (or change it),
// a player's profile (ratings per variant), and a variant's leaderboard in
// the lobby. Signing in from another device is the name form's password
// field (app.js sends it with the hello).
import { showPlayerGames } from './history.js';
import { variantTitle } from './board.js';

const $ = (sel) => document.querySelector(sel);

let conn = null;
let me = () => null;

function text(el, value) {
  el.textContent = value;
  return el;
}

// "1512 ±87": a rating and its deviation, as profiles show them.
const withDeviation = (rating) => `${Math.round(rating.rating)} ±${Math.round(rating.deviation)}`;

// What the arena measured of a bot level in a variant (a profile's
// `measured`, from inarow-arena calibrate), or that it was not measured there.
export function measureText(m, where) {
  if (!m) return `arena: not measured in ${where}`;
  const games = m.games ? `${m.games} games` : '';
  if (m.level === m.anchor) return `arena: 0 Elo, the ladder's anchor${games ? ` (${games})` : ''}`;
  const elo = Math.round(m.elo || 0);
  return `arena: ${elo < 0 ? '' : '+'}${elo} Elo over ${m.anchor} (±${Math.round(m.margin || 0)}${games ? `, ${games}` : ''})`;
}

function say(el, message, error) {
  el.textContent = message;
  el.classList.toggle('form-error', Boolean(error));
  el.hidden = !message;
}

// Profiles: ratings per variant and the player's latest games.
export async function showProfile(query) {
  const box = $('#profile');
  if (!box) return;
  let answer;
  try {
    answer = await conn.request({ getProfile: query });
  } catch (e) {
    box.hidden = false;
    return say($('#profile-note'), e.message, true);
  }
  const p = answer.profile;
  box.hidden = false;
  text($('#profile-name'), p.name);
  text($('#profile-kind'), p.bot ? 'bot' : p.account ? 'account' : 'guest');
  const list = $('#profile-ratings');
  list.replaceChildren();
  for (const r of p.ratings || []) {
    const li = document.createElement('li');
    li.dataset.variant = r.variant;
    li.textContent = `${r.variant}: ${withDeviation(r.rating)} (${r.games || 0} rated games)`;
    list.append(li);
  }
  // A level's bot: what the arena measured, per variant with a ladder.
  for (const m of p.measured || []) {
    const li = document.createElement('li');
    li.dataset.measured = m.variant;
    li.textContent = `${m.variant}: ${measureText(m, variantTitle(m.variant))}`;
    list.append(li);
  }
  say($('#profile-note'), (p.ratings || []).length ? '' : 'No rated games yet.', false);
  await showPlayerGames($('#profile-games'), p.playerId);
}

// The chosen bot's strength in the chosen variant, shown before a game: its
// rating from the rated games it has played on this server (bots are rated
// like people), or that it has none yet; and under it what the arena
// measured of the level there, or that it was not measured.
let strengthAsked = 0;
export async function showBotStrength(level, variant) {
  const line = $('#bot-strength');
  const arena = $('#bot-arena');
  if (!line || !arena || !conn) return;
  const asked = ++strengthAsked;
  let answer;
  try {
    answer = await conn.request({ getProfile: { name: `${level} bot` } });
  } catch {
    return;  // offline or refused: the line keeps what it said
  }
  if (asked !== strengthAsked) return;  // the choice changed meanwhile
  const p = answer.profile;
  const r = (p.ratings || []).find((x) => x.variant === variant);
  const where = variantTitle(variant);
  const games = r?.games || 0;
  line.dataset.level = level;
  line.dataset.variant = variant;
  line.textContent = games
    ? `${p.name}: ${withDeviation(r.rating)} in ${where}, over ${games} rated game${games === 1 ? '' : 's'}`
    : `${p.name}: no rated games in ${where} yet`;
  const measured = (p.measured || []).find((x) => x.variant === variant);
  arena.dataset.level = level;
  arena.dataset.variant = variant;
  arena.textContent = measureText(measured, where);
}

async function showLeaderboard() {
  const list = $('#leaderboard');
  let answer;
  try {
    answer = await conn.request({ getLeaderboard: { variant: $('#top-variant').value, limit: 20 } });
  } catch (e) {
    return say($('#leaderboard-note'), e.message, true);
  }
  const b = answer.leaderboard;
  list.replaceChildren();
  for (const e of b.entries || []) {
    const li = document.createElement('li');
    const name = document.createElement('button');
    name.type = 'button';
    name.className = 'link';
    name.textContent = e.name + (e.bot ? ' (bot)' : '');
    name.addEventListener('click', () => showProfile({ playerId: e.playerId }));
    li.append(`${e.rank}. `, name, ` ${Math.round(e.rating.rating)} (${e.games} games)`);
    list.append(li);
  }
  say($('#leaderboard-note'), (b.entries || []).length ? '' : `Nobody has ${b.minGames} rated games yet.`, false);
}

async function setPassword(event) {
  event.preventDefault();
  const note = $('#password-note');
  const body = { password: $('#new-password').value };
  if ($('#old-password').value) body.oldPassword = $('#old-password').value;
  try {
    await conn.request({ setPassword: body });
  } catch (e) {
    return say(note, e.message, true);
  }
  $('#new-password').value = '';
  $('#old-password').value = '';
  $('#old-password-row').hidden = false;  // from now on a change needs the old one
  say(note, `Your name is protected: sign in as ${me()?.name ?? 'you'} with this password on any device.`, false);
}

// Called once by app.js with its connection and who we are; `account` says
// whether the welcome said the player has a password.
export function initAccount(connection, whoAmI) {
  conn = connection;
  me = whoAmI;
  $('#password-form')?.addEventListener('submit', setPassword);
  $('#my-profile')?.addEventListener('click', () => showProfile({}));
  $('#top-refresh')?.addEventListener('click', showLeaderboard);
  $('#top-variant')?.addEventListener('change', showLeaderboard);
}

export function welcomed(welcome) {
  const row = $('#old-password-row');
  if (row) row.hidden = !welcome.account;
}
