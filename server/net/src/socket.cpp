#include "socket.h"

#include <spdlog/spdlog.h>

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/websocket/error.hpp>

namespace inarow::server {

void fail(boost::system::error_code ec, const char* what) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  if (ec == asio::error::operation_aborted || ec == beast::websocket::error::closed ||
      ec == beast::error::timeout || ec == asio::error::eof ||
      ec == asio::error::connection_reset) {
    spdlog::debug("io_closed op=\"{}\" error=\"{}\"", what, ec.message());
    return;
  }
  spdlog::info("io_error op=\"{}\" error=\"{}\"", what, ec.message());
}

}  // namespace inarow::server
