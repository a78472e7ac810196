// ByteSink: where a serialized block goes, piece by piece (WriteBlock). A piece may be a whole
// column's buffer and is valid only during the call, so a sink either copies it or writes it out
// at once; it never keeps the view.
#pragma once

#include <string_view>

namespace rowbridge::clickhouse {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void Append(std::string_view bytes) = 0;
};

}  // namespace rowbridge::clickhouse
