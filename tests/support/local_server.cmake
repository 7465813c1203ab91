# harel_local_server: starts DynamoDB Local / moto_server on a free loopback
# port (local_server.h). Shared by the tests and the benchmark, so whichever
# of them is built first defines it.
include_guard(GLOBAL)
add_library(harel_local_server STATIC ${CMAKE_CURRENT_LIST_DIR}/local_server.cpp)
target_link_libraries(harel_local_server PUBLIC harel::harel PRIVATE harel_warnings)
target_include_directories(harel_local_server PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_compile_definitions(harel_local_server PRIVATE
                           HAREL_DYNAMODB_LOCAL_DIR="${PROJECT_SOURCE_DIR}/.deps/dynamodb-local")
