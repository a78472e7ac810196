#include "common/error.h"

#include <exception>
#include <new>

namespace rowbridge {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kConfig:
      return "configuration error";
    case ErrorCode::kCorruption:
      return "corrupt data";
    case ErrorCode::kProtocol:
      return "protocol error";
    case ErrorCode::kServer:
      return "server error";
    case ErrorCode::kNetwork:
      return "network error";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kConversion:
      return "conversion error";
    case ErrorCode::kIo:
      return "I/O error";
    case ErrorCode::kFenced:
      return "fenced";
    case ErrorCode::kSourceChanged:
      return "source changed";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "error";
}

Error CurrentExceptionAsError(std::string_view where) {
  try {
    throw;
  } catch (const Error& e) {
    return e.WithMessage(fmt::format("{}: {}", where, e.what()));
  } catch (const std::bad_alloc&) {
    return Error(ErrorCode::kInternal, fmt::format("{}: out of memory (std::bad_alloc)", where));
  } catch (const std::exception& e) {
    return Error(ErrorCode::kInternal,
                 fmt::format("{}: unexpected exception: {}", where, e.what()));
  } catch (...) {
    return Error(ErrorCode::kInternal,
                 fmt::format("{}: unexpected exception of unknown type", where));
  }
}

}  // namespace rowbridge
