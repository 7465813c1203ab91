#include "store/listing.h"

#include <algorithm>

#include <boost/json/parse.hpp>

#include "harel/errors.h"
#include "harel/json/write.h"
#include "util/base64.h"

namespace harel::store {

bool matches(const ListQuery& query, const ExecutionSummary& s) {
  if (!query.statuses.empty() &&
      std::find(query.statuses.begin(), query.statuses.end(), s.status) == query.statuses.end())
    return false;
  if (query.definition_id && *query.definition_id != s.definition_id) return false;
  if (query.roots_only && s.parent_id) return false;
  return true;
}

std::string encode_after_cursor(std::string_view last_id) {
  std::string text = "{\"after\":";
  json::write_string(text, last_id);
  text += '}';
  return util::base64url_encode(text);
}

std::string decode_after_cursor(std::string_view cursor) {
  const auto text = util::base64url_decode(cursor);
  if (!text) throw InvalidCursor("cursor is not base64url");
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(*text, ec);
  const boost::json::object* obj = ec ? nullptr : v.if_object();
  const boost::json::value* after = obj && obj->size() == 1 ? obj->if_contains("after") : nullptr;
  if (!after || !after->is_string() || after->get_string().empty())
    throw InvalidCursor("cursor was not produced by this store");
  return std::string(after->get_string());
}

}  // namespace harel::store
