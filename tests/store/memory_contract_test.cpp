#include "harel/store/memory_store.h"
#include "store/contract.h"

namespace harel::testing {
namespace {

StoreFactory memory_factory() { return {"Memory", [] { return std::make_unique<MemoryStore>(); }, nullptr}; }

HAREL_INSTANTIATE_STORE_CONTRACT(Memory, memory_factory());

}  // namespace
}  // namespace harel::testing
