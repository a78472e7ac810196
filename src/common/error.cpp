#include "common/error.h"

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
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "error";
}

}  // namespace rowbridge
