// Plain HTTP on a new connection: GET /healthz, /metrics, /matches/<id>
// (a game record as JSON) and the browser client; an upgrade at /ws becomes
// a WebSocketSession. Keep-alive, one request at a time.
//
// Limits: max_http_connections_per_ip connections per address (more are
// closed at once), a whole request within http_request_timeout, a request
// line of at most 8 KiB (414), headers of at most 16 KiB (431), a body of at
// most 16 KiB (413); what cannot be parsed gets 400 and GET /ws without an
// upgrade 426. After an error answer the connection is closed once the
// client's remaining bytes are read (or 2 s pass), so the answer is not lost
// to a reset.
#pragma once

#include "session_context.h"
#include "socket.h"

namespace inarow::server {

// Serve a connection just accepted (on its own strand).
void serve_http(Socket&& socket, SessionContext& shared);

}  // namespace inarow::server
