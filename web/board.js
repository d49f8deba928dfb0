// Draws a k-in-a-row board as SVG from the moves the server reported. It only
// places stones where the server said they went; legality is the server's.

const SVG = 'http://www.w3.org/2000/svg';

// "tictactoe", "connect4", "gomoku", "gomoku-standard",
// "mnk:M,N,K[,gravity][,exact]" -> shape. `exact`: only exactly k wins.
// A swap2 opening ("gomoku-swap2", "mnk:…,swap2") keeps the shape and sets
// swap2: the stones still alternate, only who places them changes.
export function parseVariant(name) {
  const named = /^(tictactoe|connect4|gomoku|gomoku-standard)(-swap2)?$/.exec(name || '');
  if (named) {
    const shapes = {
      tictactoe: { width: 3, height: 3, k: 3, gravity: false },
      connect4: { width: 7, height: 6, k: 4, gravity: true },
      gomoku: { width: 15, height: 15, k: 5, gravity: false },
      'gomoku-standard': { width: 15, height: 15, k: 5, gravity: false, exact: true },
    };
    return { name, ...shapes[named[1]], swap2: Boolean(named[2]) };
  }
  const m = /^mnk:(\d+),(\d+),(\d+)(,gravity)?(,exact)?(,swap2)?$/.exec(name || '');
  if (!m) return null;
  return {
    name, width: +m[1], height: +m[2], k: +m[3], gravity: Boolean(m[4]), exact: Boolean(m[5]), swap2: Boolean(m[6]),
  };
}

// Whether a board can be opened with swap2, as the server judges it: no
// gravity, k of 4 or more and at least 16 cells.
export function swap2Allowed(v) {
  return !v.gravity && v.k >= 4 && v.width * v.height >= 16;
}

// How the board looks: discs in a frame under gravity, X and O on a small
// grid, stones on the lines of a goban otherwise.
export function boardStyle(v) {
  if (v.gravity) return 'discs';
  return Math.max(v.width, v.height) <= 6 ? 'marks' : 'goban';
}

const letter = (col) => String.fromCharCode(97 + col);

// The name of a column under gravity, as the server writes it: its number.
export function columnName(v, col) {
  return String(col + 1);
}

export function cellName(col, row) {
  return letter(col) + (row + 1);
}

export function parseCell(text) {
  const m = /^([a-z])(\d+)$/.exec(text);
  return m ? { col: m[1].charCodeAt(0) - 97, row: +m[2] - 1 } : null;
}

// A gravity move: its column number ("10" on a wide board), or the column
// letter wide boards' games were first written with.
function parseColumn(text) {
  return /^\d+$/.test(text) ? +text - 1 : text.charCodeAt(0) - 97;
}

// Replays the moves into a grid: grid[row][col] = 0 empty, 1 first, 2 second.
// Returns the grid and where each move landed.
export function replay(v, moves) {
  const grid = Array.from({ length: v.height }, () => new Array(v.width).fill(0));
  const placed = [];
  moves.forEach((move, i) => {
    const side = i % 2 === 0 ? 1 : 2;
    let cell;
    if (v.gravity) {
      const col = parseColumn(move);
      let row = 0;
      while (row < v.height && grid[row][col]) row++;
      cell = { col, row };
    } else {
      cell = parseCell(move);
    }
    if (!cell || cell.row >= v.height || cell.col < 0 || cell.col >= v.width) return;
    grid[cell.row][cell.col] = side;
    placed.push(cell);
  });
  return { grid, placed };
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// Renders into `host`. view: {variant, title, moves, winningLine, playable,
// cursor, selected, pieceNames, animateLast, onPlay(move, cell)}; cursor is
// {col, row} for the keyboard, selected the name of a cell tapped once on a
// touch screen (shown as a preview until it is confirmed).
export function renderBoard(host, view) {
  const v = parseVariant(view.variant);
  host.replaceChildren();
  if (!v) return;
  const style = boardStyle(v);
  const { grid, placed } = replay(v, view.moves);
  const last = placed[placed.length - 1];
  const winning = new Set(view.winningLine || []);

  const unit = 40;
  const margin = 28;  // room for the coordinates
  const W = v.width * unit;
  const H = v.height * unit;
  // The drawing is not what a screen reader reads: the host is an ARIA grid
  // of rows (top row first) and labelled cells, built below.
  const svg = el('svg', {
    viewBox: `0 0 ${W + 2 * margin} ${H + 2 * margin}`,
    class: `board board-${style} me-${view.mySide === 2 ? 'second' : 'first'}`,
    role: 'none',
  });
  host.setAttribute('role', 'grid');
  host.setAttribute('aria-rowcount', String(v.height));
  host.setAttribute('aria-colcount', String(v.width));
  host.setAttribute('aria-label', `${view.title || v.name} board, ${view.moves.length} moves`
    + (view.playable ? ': arrow keys move, Enter plays' : ''));
  host.appendChild(svg);
  const g = el('g', { transform: `translate(${margin} ${margin})` }, svg);
  // Screen position of a cell's centre; row 0 is the bottom.
  const cx = (col) => col * unit + unit / 2;
  const cy = (row) => (v.height - 1 - row) * unit + unit / 2;

  if (style === 'discs') {
    el('rect', { x: -6, y: -6, width: W + 12, height: H + 12, rx: 12, class: 'frame' }, g);
  } else if (style === 'goban') {
    el('rect', { x: 2 - margin, y: 2 - margin, width: W + 2 * margin - 4, height: H + 2 * margin - 4, rx: 6, class: 'wood' }, g);
    for (let col = 0; col < v.width; col++) {
      el('line', { x1: cx(col), y1: cy(0), x2: cx(col), y2: cy(v.height - 1), class: 'grid' }, g);
    }
    for (let row = 0; row < v.height; row++) {
      el('line', { x1: cx(0), y1: cy(row), x2: cx(v.width - 1), y2: cy(row), class: 'grid' }, g);
    }
    for (const [col, row] of starPoints(v)) el('circle', { cx: cx(col), cy: cy(row), r: 3.5, class: 'star' }, g);
  } else {
    el('rect', { x: 0, y: 0, width: W, height: H, class: 'paper' }, g);
  }
  // Coordinates: letters (or column numbers under gravity) below, row numbers left.
  for (let col = 0; col < v.width; col++) {
    const label = v.gravity ? columnName(v, col) : letter(col);
    el('text', { x: cx(col), y: H + margin * 0.7, class: 'coord' }, g).textContent = label;
  }
  if (!v.gravity) {
    for (let row = 0; row < v.height; row++) {
      el('text', { x: -margin / 2, y: cy(row) + 4, class: 'coord' }, g).textContent = row + 1;
    }
  }


  // Cells, top row first as they are read; each knows its own name for the
  // mouse and tests, and says what is on it for a screen reader.
  const pieces = view.pieceNames || ['first player', 'second player'];
  for (let row = v.height - 1; row >= 0; row--) {
    const rowGroup = el('g', { role: 'row', 'aria-rowindex': String(v.height - row) }, g);
    for (let col = 0; col < v.width; col++) {
      const side = grid[row][col];
      const name = cellName(col, row);
      const move = v.gravity ? columnName(v, col) : name;
      const cell = el('g', {
        class: 'cell', 'data-cell': name, 'data-col': columnName(v, col),
        id: `cell-${name}`, role: 'gridcell', 'aria-colindex': String(col + 1),
      }, rowGroup);
      if (side) cell.setAttribute('data-stone', side === 1 ? 'first' : 'second');
      const columnFull = v.gravity && grid[v.height - 1][col] !== 0;
      const canPlay = view.playable && (v.gravity ? !columnFull : !side);
      const isLastMove = side && last && last.col === col && last.row === row;
      cell.setAttribute('aria-label', `${v.gravity ? `column ${columnName(v, col)}, ` : ''}${name}, `
        + `${side ? pieces[side - 1] : 'empty'}${isLastMove ? ', last move' : ''}`
        + `${winning.has(name) ? ', winning line' : ''}`);
      if (view.selected === name) cell.classList.add('selected');
      if (canPlay) {
        cell.classList.add('playable');
        cell.addEventListener('click', () => view.onPlay(move, name));
        if (v.gravity) {
          // Hovering anywhere in a column lights it and shows where the disc would land.
          const lit = (on) => () => g.querySelectorAll(`.cell[data-col="${columnName(v, col)}"]`)
            .forEach((c) => c.classList.toggle('column-hover', on));
          cell.addEventListener('mouseenter', lit(true));
          cell.addEventListener('mouseleave', lit(false));
          if (!side && (row === 0 || grid[row - 1][col])) cell.classList.add('landing');
        }
      }
      if (v.gravity && columnFull && view.playable) cell.classList.add('full');
      el('rect', { x: col * unit, y: (v.height - 1 - row) * unit, width: unit, height: unit, class: 'hit' }, cell);
      if (winning.has(name)) el('rect', { x: col * unit + 2, y: (v.height - 1 - row) * unit + 2, width: unit - 4, height: unit - 4, rx: 6, class: 'win-cell' }, cell);
      if (view.cursor && view.cursor.col === col && (v.gravity || view.cursor.row === row)) {
        if (!v.gravity || row === v.height - 1) {
          el('rect', {
            x: col * unit + 1, y: v.gravity ? 1 : (v.height - 1 - row) * unit + 1,
            width: unit - 2, height: v.gravity ? H - 2 : unit - 2, rx: 5, class: 'cursor',
          }, g);
        }
      }
      if (style === 'discs') el('circle', { cx: cx(col), cy: cy(row), r: unit * 0.38, class: 'hole' }, cell);
      if (side) {
        const stone = drawStone(cell, style, side, cx(col), cy(row), unit);
        if (isLastMove) {
          cell.classList.add('last');
          if (view.animateLast && style === 'discs') {
            stone.classList.add('drop');
            stone.style.setProperty('--drop-from', `${-(cy(row) + unit)}px`);
          }
          el('circle', { cx: cx(col), cy: cy(row), r: unit * 0.1, class: `last-mark on-${side}` }, cell);
        }
      } else if (canPlay && style !== 'discs') {  // a preview under the mouse, or the tapped cell
        drawStone(cell, style, view.mySide || 1, cx(col), cy(row), unit).classList.add('ghost');
      }
    }
  }

  // The keyboard's cell for a screen reader: where the cursor is, or under
  // gravity where a disc dropped in the cursor's column would land.
  if (view.cursor) {
    let row = view.cursor.row;
    if (v.gravity) {
      row = 0;
      while (row < v.height - 1 && grid[row][view.cursor.col]) row++;
    }
    host.setAttribute('aria-activedescendant', `cell-${cellName(view.cursor.col, row)}`);
  } else {
    host.removeAttribute('aria-activedescendant');
  }

  // The lines of a paper grid go over the cells, so a marked cell does not hide them.
  if (style === 'marks') {
    for (let col = 1; col < v.width; col++) {
      el('line', { x1: col * unit, y1: 4, x2: col * unit, y2: H - 4, class: 'grid' }, g);
    }
    for (let row = 1; row < v.height; row++) {
      el('line', { x1: 4, y1: row * unit, x2: W - 4, y2: row * unit, class: 'grid' }, g);
    }
  }

  // The winning line, drawn through the centres of its two ends.
  if (view.winningLine && view.winningLine.length >= 2) {
    const cells = view.winningLine.map(parseCell).filter(Boolean);
    cells.sort((a, b) => a.col - b.col || a.row - b.row);
    const [a, b] = [cells[0], cells[cells.length - 1]];
    el('line', { x1: cx(a.col), y1: cy(a.row), x2: cx(b.col), y2: cy(b.row), class: 'win-line' }, g);
  }
  return svg;
}

function drawStone(parent, style, side, x, y, unit) {
  if (style === 'marks') {
    const s = unit * 0.28;
    if (side === 1) {
      const mark = el('g', { class: 'mark mark-x' }, parent);
      el('line', { x1: x - s, y1: y - s, x2: x + s, y2: y + s }, mark);
      el('line', { x1: x - s, y1: y + s, x2: x + s, y2: y - s }, mark);
      return mark;
    }
    return el('circle', { cx: x, cy: y, r: s, class: 'mark mark-o' }, parent);
  }
  const r = style === 'discs' ? unit * 0.38 : unit * 0.44;
  return el('circle', { cx: x, cy: y, r, class: `stone stone-${side === 1 ? 'first' : 'second'}` }, parent);
}

// The hoshi of a goban: corners three or four lines in, and the centre.
function starPoints(v) {
  if (v.width < 9 || v.height < 9) return [];
  const d = v.width >= 13 && v.height >= 13 ? 3 : 2;
  const pts = [[d, d], [v.width - 1 - d, d], [d, v.height - 1 - d], [v.width - 1 - d, v.height - 1 - d]];
  if (v.width % 2 && v.height % 2) pts.push([(v.width - 1) / 2, (v.height - 1) / 2]);
  return pts;
}

// A variant's name for people: "Gomoku 15×15, exactly five", "9×9, 4 in a row".
export function variantTitle(name) {
  const v = parseVariant(name);
  if (!v) return name;
  const titles = {
    tictactoe: 'Tic-tac-toe',
    connect4: 'Connect four',
    gomoku: 'Gomoku 15×15',
    'gomoku-standard': 'Gomoku 15×15, exactly five',
  };
  const base = name.replace(/-swap2$/, '');
  const title = titles[base]
    || `${v.width}×${v.height}, ${v.exact ? 'exactly ' : ''}${v.k} in a row${v.gravity ? ', gravity' : ''}`;
  return v.swap2 ? `${title}, swap2` : title;
}
