#include "harel/transport/memory_transport.h"
#include "transport/contract.h"

namespace harel::testing {
namespace {

TransportFactory memory_factory() { return {"Memory", [] { return std::make_unique<MemoryTransport>(); }}; }

HAREL_INSTANTIATE_TRANSPORT_CONTRACT(Memory, memory_factory());

}  // namespace
}  // namespace harel::testing
