// Plain HTTP on a new connection: GET /healthz, /metrics, /matches/<id>
// (a game record as JSON) and the browser client; an upgrade at /ws becomes
// a WebSocketSession. Keep-alive, one request at a time.
#pragma once

#include "session_context.h"
#include "socket.h"

namespace inarow::server {

// Serve a connection just accepted (on its own strand).
void serve_http(Socket&& socket, SessionContext& shared);

}  // namespace inarow::server
