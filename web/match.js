// One match as the page knows it: built from the server's MatchState and
// advanced by its events. Nothing here judges a move; it records what the
// server reported.

// A MatchState (JSON mapping, defaults left out) as a plain object.
export function matchFromState(state) {
  return {
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
  };
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
// {moved: true, side, move} or {ended: true}.
export function applyEvent(match, event) {
  match.lastSeq = Number(event.seq);
  if (event.clocks) match.clocks = readClocks(event.clocks);
  if (event.moveMade) {
    match.moves.push(event.moveMade.move);
    match.toMove = event.moveMade.side === 'SIDE_FIRST' ? 'SIDE_SECOND' : 'SIDE_FIRST';
    match.drawOfferedBy = null;  // an offer stands until the other side moves
    return { moved: true, side: event.moveMade.side, move: event.moveMade.move };
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
    return { ended: true };
  }
  return {};
}
