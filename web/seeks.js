// The lobby's open seeks: who waits for a game, in which variant and clock,
// rated or not, with their rating; Accept plays them at once, and the
// player's own seek shows Cancel. The server pushes a fresh list (with the
// counts of players online and games in play) whenever any of it changes,
// once this page follows it.

const $ = (sel) => document.querySelector(sel);

let deps = null;  // {conn, run, me, title, cancelled}
let following = false;

// conn: the Connection; run(request): a request whose error is shown;
// me(): {playerId} or null; title(variant): its name for people;
// cancelled(): the player's own seek was withdrawn here.
export function init(dependencies) {
  deps = dependencies;
}

// Asks for the list and for every change to it after (again after a
// reconnect: a new socket follows nothing).
export async function follow() {
  following = true;
  const answer = await deps.run(() => deps.conn.request({ listSeeks: { follow: true } }));
  if (answer?.seekList) show(answer.seekList);
}

// Stops the pushes while the lobby is out of sight (a game, a replay): a
// page in a game has no use for every change to the seeks.
export function unfollow() {
  if (!following) return;
  following = false;
  deps.conn.request({ listSeeks: { follow: false } }).catch(() => {});  // a closed socket follows nothing
}

// A list the server pushed.
export function onList(list) {
  show(list);
}

function clockText(tc = {}) {
  const initial = Number(tc.initialMs || 0);
  if (!initial) return 'No clock';
  const minutes = initial / 60000;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)}+${Number(tc.incrementMs || 0) / 1000}`;
}

// One open seek's row: its terms, and Accept (or Cancel, for our own).
function seekRow(s, key, label, mine) {
  const li = document.createElement('li');
  li.dataset.seekId = s.seekId;
  li.dataset.key = key;
  const player = s.player || {};
  const text = document.createElement('span');
  text.textContent = label;
  const button = document.createElement('button');
  button.type = 'button';
  if (mine) {
    li.classList.add('mine');
    button.textContent = 'Cancel';
    button.addEventListener('click', async () => {
      if (await deps.run(() => deps.conn.request({ cancelSeek: {} }))) deps.cancelled();
    });
  } else {
    button.textContent = 'Accept';
    button.className = 'primary';
    button.setAttribute('aria-label', `Accept ${player.name || 'this'}'s game`);
    // The match's start comes as an event, as for any seek.
    button.addEventListener('click', () => deps.run(() => deps.conn.request({ acceptSeek: { seekId: s.seekId } })));
  }
  li.append(text, button);
  return li;
}

function show(list) {
  const online = list.playersOnline || 0;
  const games = list.gamesInPlay || 0;
  $('#lobby-counts').textContent = `${online} online · ${games} ${games === 1 ? 'game' : 'games'} in play`;
  const mine = deps.me()?.playerId;
  const seeks = list.seeks || [];
  // A row that did not change is kept, not built again: a push (the counts
  // change whenever anyone comes or goes) landing between a press and its
  // release would otherwise swap the button under the pointer, and the
  // click would be lost.
  const kept = new Map([...$('#seeks').children].map((li) => [li.dataset.key, li]));
  const rows = seeks.map((s) => {
    const player = s.player || {};
    const rating = Math.round(player.rating?.rating ?? 1500);
    const label = `${player.name || '?'} (${rating}) · ${deps.title(s.variant)} · ${clockText(s.timeControl)}`
      + ` · ${s.rated ? 'rated' : 'casual'}`;
    const key = JSON.stringify([s.seekId, player.id === mine, label]);
    return kept.get(key) || seekRow(s, key, label, player.id === mine);
  });
  const current = [...$('#seeks').children];
  if (rows.length !== current.length || rows.some((li, i) => li !== current[i])) {
    $('#seeks').replaceChildren(...rows);
  }
  const more = (list.total || 0) - seeks.length;
  $('#no-seeks').textContent = seeks.length ? (more > 0 ? `and ${more} more` : '') : 'Nobody is waiting right now.';
}
