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
  }

  get open() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  // Opens the socket; resolves once it is open.
  connect() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      this.socket = socket;
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error('cannot reach the server'));
      socket.onmessage = (e) => this.receive(JSON.parse(e.data));
      socket.onclose = (e) => {
        if (this.socket !== socket) return;
        this.socket = null;
        for (const { reject: fail } of this.pending.values()) fail(new Error('connection lost'));
        this.pending.clear();
        this.onClose(e);
      };
    });
  }

  close() {
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close();
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
