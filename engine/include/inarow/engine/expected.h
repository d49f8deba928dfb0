// Moved to inarow/common/expected.h. This forwarder goes once the server
// includes the common header.
#pragma once

#include "inarow/common/expected.h"
