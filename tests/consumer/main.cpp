// Saves and reloads one execution through the installed library.
#include <cstdio>

#include "harel/store/open.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto store = harel::open_store(std::string("sqlite:") + argv[1]);
  harel::Execution exe;
  exe.id = "consumer-1";
  exe.definition_id = "order";
  store->save(exe);
  const auto loaded = store->load("consumer-1");
  if (!loaded || loaded->version != 1) return 1;
  std::puts("consumer ok");
  return 0;
}
