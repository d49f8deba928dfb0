// Moved to inarow/common/error.h. This forwarder goes once the server
// includes the common header.
#pragma once

#include "inarow/common/error.h"
