// The WebSocket to /ws, speaking the protocol's JSON mapping (text frames).
// Requests are matched to their direct answers by requestId; everything the
// server sends on its own (match events, bye) is handed to onPush.

export class ServerError extends Error {
  constructor(error) {
    super(error.message || error.code);
    this.code = error.code;
    this.matchId = error.matchId;
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.socket = null;
    this.nextId = 1;
    this.pending = new Map();  // requestId -> {resolve, reject}
    this.onPush = () => {};
    this.onClose = () => {};
    this.abandon = null;  // rejects the connect() still waiting for its socket
  }

  get open() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  // Opens a new socket, closing the old one first: a tab holds one connection,
  // always. Resolves once it is open; rejects if it never opens (or another
  // connect() replaces it first). onClose fires only for a socket that was
  // open, so a failed attempt is reported once, by the rejection.
  connect() {
    this.close();
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      let opened = false;
      this.socket = socket;
      this.abandon = () => reject(new Error('connection replaced'));
      socket.onopen = () => {
        opened = true;
        this.abandon = null;
        resolve();
      };
      socket.onerror = () => {};  // onclose follows and says what happened
      socket.onmessage = (e) => this.receive(JSON.parse(e.data));
      socket.onclose = (e) => {
        if (this.socket !== socket) return;
        this.socket = null;
        this.abandon = null;
        this.failPending('connection lost');
        if (opened) this.onClose(e);
        else reject(new Error('cannot reach the server'));
      };
    });
  }

  // Closes the socket with its handlers detached first, so nothing it still
  // says (or its close) reaches the page; what waited on it fails now.
  close() {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    socket.onopen = socket.onerror = socket.onmessage = socket.onclose = null;
    socket.close();
    this.failPending('connection closed');
    if (this.abandon) this.abandon();
    this.abandon = null;
  }

  failPending(why) {
    for (const { reject } of this.pending.values()) reject(new Error(why));
    this.pending.clear();
  }

  // Sends one ClientMessage body, e.g. {move: {matchId, move}}; resolves with
  // the answer's body ({ack: …}, {welcome: …}) or rejects with a ServerError.
  request(body) {
    if (!this.open) return Promise.reject(new Error('not connected'));
    const requestId = String(this.nextId++);
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { resolve, reject });
      this.socket.send(JSON.stringify({ requestId, ...body }));
    });
  }

  // Match events and states go to onPush whether or not they answer a request
  // (a watch is answered by a matchState), so one place keeps the game.
  receive(message) {
    const waiter = message.requestId ? this.pending.get(message.requestId) : undefined;
    if (!waiter || message.matchState || message.event) this.onPush(message);
    if (!waiter) return;
    this.pending.delete(message.requestId);
    if (message.error) waiter.reject(new ServerError(message.error));
    else waiter.resolve(message);
  }
}
