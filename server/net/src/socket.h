// The socket every connection is served on. Each connection runs on a
// strand of its own, named by type: Asio's type-erased any_io_executor would
// dispatch through a function table and copy itself into every operation of
// every frame.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>

namespace inarow::server {

using ConnectionExecutor = boost::asio::strand<boost::asio::io_context::executor_type>;
using Socket = boost::asio::ip::tcp::socket::rebind_executor<ConnectionExecutor>::other;

// Report a failure, except the ones that only mean "we are closing".
void fail(boost::system::error_code ec, const char* what);

}  // namespace inarow::server
