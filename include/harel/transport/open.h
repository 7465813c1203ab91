// Opening a transport from a URL, the way harelctl and applications pick one.
//
//   memory:        MemoryTransport (nothing persists; one process)
//   sqlite:PATH    SqliteTransport on PATH (created if missing; may be the
//                  file of a SqliteStore)
//
// Malformed URLs and unknown schemes raise InvalidArgument naming the part
// that is wrong.
#pragma once

#include <memory>
#include <string_view>

#include "harel/transport/transport.h"

namespace harel {

std::unique_ptr<Transport> open_transport(std::string_view url);

}  // namespace harel
