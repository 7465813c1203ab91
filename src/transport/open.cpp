#include "harel/transport/open.h"

#include <string>

#include "harel/errors.h"
#include "harel/transport/memory_transport.h"
#include "harel/transport/sqlite_transport.h"
#include "store/store_url.h"

namespace harel {

std::unique_ptr<Transport> open_transport(std::string_view url) {
  const auto parsed = store::StoreUrl::parse(url);
  if (parsed.scheme == "memory") {
    parsed.expect_only({});
    return std::make_unique<MemoryTransport>();
  }
  if (parsed.scheme == "sqlite") {
    parsed.expect_only({});
    if (parsed.rest.empty())
      throw InvalidArgument("transport URL '" + std::string(url) + "' names no file (sqlite:PATH)");
    return std::make_unique<SqliteTransport>(parsed.rest);
  }
  throw InvalidArgument("transport URL '" + std::string(url) + "': unknown scheme '" + parsed.scheme +
                        "' (known: sqlite:PATH, memory:)");
}

}  // namespace harel
