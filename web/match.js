// One match as the page knows it: built from the server's MatchState and
// advanced by its events. Nothing here judges a move; it records what the
// server reported.

// A MatchState (JSON mapping, defaults left out) as a plain object.
export function matchFromState(state) {
  const match = {
    matchId: state.matchId,
    variant: state.variant,
    kind: state.kind,
    rated: Boolean(state.rated),
    timeControl: state.timeControl || {},
    first: state.first || {},
    second: state.second || {},
    moves: state.moves || [],
    toMove: state.toMove,
    result: state.result && state.result !== 'RESULT_UNSPECIFIED' ? state.result : null,
    decided: false,          // the last stone ended the game; its `ended` is on the way
    endReason: state.endReason,
    lastSeq: Number(state.lastSeq || 0),
    drawOfferedBy: state.drawOfferedBy || null,
    takebackRequestedBy: state.takebackRequestedBy || null,
    yourSide: state.yourSide || null,
    spectators: Number(state.spectators || 0),  // connections watching
    winningLine: [],
    ratings: [],
    presence: { SIDE_FIRST: true, SIDE_SECOND: true },
    clocks: readClocks(state.clocks),
    rematchOfferedBy: null,  // after the end: the side offering a rematch
    rematchId: null,         // the rematch once it began
    opening: readOpening(state.opening),
    openingNotes: [],        // the opening's choices seen here, in words (app.js)
  };
  if (match.result) match.opening = null;
  return match;
}

// Where a swap2 opening stands: {step, toAct}, or null when there is none
// (no opening rule, or it is over: the sides move in turn).
export function readOpening(o) {
  if (!o || !o.step || o.step === 'OPENING_STEP_UNSPECIFIED') return null;
  return { step: o.step, toAct: o.toAct && o.toAct !== 'SIDE_UNSPECIFIED' ? o.toAct : 'SIDE_FIRST' };
}

// The side whose player acts now: during an opening the one it names (by a
// stone or a choice), else the side of the next stone.
export function actingSide(match) {
  return match.opening ? match.opening.toAct : match.toMove;
}

// Whether the player acting now places a stone (not a choice of sides).
export function placingStone(match) {
  return !match.opening || ['OPENING_STEP_PLACE_THREE', 'OPENING_STEP_PLACE_TWO'].includes(match.opening.step);
}

// Clocks as the server had them, stamped with when we heard.
export function readClocks(c = {}) {
  return {
    SIDE_FIRST: Number(c.firstMs || 0),
    SIDE_SECOND: Number(c.secondMs || 0),
    running: c.running && c.running !== 'SIDE_UNSPECIFIED' ? c.running : null,
    at: performance.now(),
  };
}

// The time a side has now: the server's figure less what ran since.
export function clockLeft(match, side) {
  const c = match.clocks;
  const elapsed = c.running === side && !match.result ? performance.now() - c.at : 0;
  return Math.max(0, c[side] - elapsed);
}

export function timed(match) {
  return Number(match.timeControl.initialMs || 0) > 0;
}

// Applies a rematch event (unnumbered: not part of the game). Returns what
// the player may want told, as applyEvent does: {rematch: 'offered' |
// 'declined' | 'lapsed' | 'started', by}; null if it is no rematch event.
export function applyRematchEvent(match, event) {
  if (event.rematchOffered) {
    match.rematchOfferedBy = event.rematchOffered.by;
    return { rematch: 'offered', by: event.rematchOffered.by };
  }
  if (event.rematchDeclined) {
    match.rematchOfferedBy = null;
    return { rematch: event.rematchDeclined.lapsed ? 'lapsed' : 'declined', by: event.rematchDeclined.by };
  }
  if (event.rematchStarted) {
    match.rematchOfferedBy = null;
    match.rematchId = event.rematchStarted.matchId;
    return { rematch: 'started' };
  }
  return null;
}

// Applies one event (already known to be this match's and new). Returns what
// the player may want told: {declined: 'draw' | 'takeback', by},
// {moved: true, side, move, by} (side: the stone's; by: the side of the
// player who placed it, which differs in an opening), {chosen: {by, side,
// placeTwo, swapped}} or {ended: true}.
export function applyEvent(match, event) {
  match.lastSeq = Number(event.seq);
  if (event.clocks) match.clocks = readClocks(event.clocks);
  if (event.moveMade) {
    const by = actingSide(match);
    match.moves.push(event.moveMade.move);
    // The stones alternate whoever places them: the next one is the other colour.
    match.toMove = match.moves.length % 2 ? 'SIDE_SECOND' : 'SIDE_FIRST';
    match.opening = readOpening(event.moveMade.opening);
    match.decided = Boolean(event.moveMade.endsGame);
    match.drawOfferedBy = null;  // an offer stands until the other side moves
    return { moved: true, side: event.moveMade.side, move: event.moveMade.move, by };
  }
  if (event.openingChosen) {
    const c = event.openingChosen;
    // The players in their sides after the choice; a swap moves us too.
    if (c.first) match.first = c.first;
    if (c.second) match.second = c.second;
    if (c.swapped) {
      if (match.yourSide) match.yourSide = match.yourSide === 'SIDE_FIRST' ? 'SIDE_SECOND' : 'SIDE_FIRST';
      const { SIDE_FIRST: first, SIDE_SECOND: second } = match.presence;  // who is away goes with them
      match.presence = { SIDE_FIRST: second, SIDE_SECOND: first };
    }
    match.opening = readOpening(c.opening);
    const side = c.side && c.side !== 'SIDE_UNSPECIFIED' ? c.side : null;
    return { chosen: { by: c.by, side, placeTwo: Boolean(c.placeTwo), swapped: Boolean(c.swapped) } };
  }
  if (event.drawOffered) {
    match.drawOfferedBy = event.drawOffered.by;
  } else if (event.drawDeclined) {
    match.drawOfferedBy = null;
    return { declined: 'draw', by: event.drawDeclined.by };
  } else if (event.takebackRequested) {
    match.takebackRequestedBy = event.takebackRequested.by;
  } else if (event.takebackDeclined) {
    match.takebackRequestedBy = null;
    return { declined: 'takeback', by: event.takebackDeclined.by };
  } else if (event.takebackDone) {
    match.moves = event.takebackDone.moves || [];
    match.decided = false;
    match.toMove = match.moves.length % 2 ? 'SIDE_SECOND' : 'SIDE_FIRST';
    match.takebackRequestedBy = null;
  } else if (event.presence) {
    match.presence[event.presence.side] = Boolean(event.presence.connected);
  } else if (event.ended) {
    match.result = event.ended.result;
    match.endReason = event.ended.reason;
    match.winningLine = event.ended.winningLine || [];
    match.ratings = event.ended.ratings || [];
    match.drawOfferedBy = match.takebackRequestedBy = null;
    match.opening = null;
    return { ended: true };
  }
  return {};
}
