#include "binlog/binlog_file_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "binlog/event_header.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace {
constexpr size_t kReadChunk = 1 << 16;
}

BinlogFileReader::BinlogFileReader(const std::string& path, size_t max_event_size)
    : path_(path),
      name_(std::filesystem::path(path).filename().string()),
      context_("binlog " + path),
      max_event_size_(max_event_size),
      file_(std::fopen(path.c_str(), "rb"), &std::fclose) {
  if (!file_) Fail(ErrorCode::kIo, "cannot open binlog {}: {}", path, std::strerror(errno));
  buf_.resize(kReadChunk);
  if (Fill(kBinlogMagicSize) < kBinlogMagicSize ||
      std::memcmp(buf_.data(), kBinlogMagic, kBinlogMagicSize) != 0) {
    Fail(ErrorCode::kCorruption, "{} at offset 0: not a binlog file (bad magic number)", context_);
  }
  pos_ = kBinlogMagicSize;
}

size_t BinlogFileReader::Fill(size_t n) {
  if (end_ - pos_ >= n || eof_) return end_ - pos_;
  // Slide the unread bytes to the front, grow if one event needs more room, then read.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    window_offset_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  if (buf_.size() < n) buf_.resize(std::max(n, buf_.size() * 2));
  while (end_ < n && !eof_) {
    size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_.get());
    if (got == 0) {
      if (std::ferror(file_.get())) {
        Fail(ErrorCode::kIo, "{}: read error at offset {}: {}", context_, window_offset_ + end_,
             std::strerror(errno));
      }
      eof_ = true;
    }
    end_ += got;
  }
  return end_ - pos_;
}

bool BinlogFileReader::Next(RawEvent& event) {
  uint64_t offset = position();
  size_t have = Fill(kEventHeaderSize);
  if (have == 0) return false;
  if (have < kEventHeaderSize) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: truncated event header ({} of {} bytes before end of file)", context_,
         offset, have, kEventHeaderSize);
  }
  const uint8_t* h = buf_.data() + pos_;
  uint32_t size = static_cast<uint32_t>(h[9]) | static_cast<uint32_t>(h[10]) << 8 |
                  static_cast<uint32_t>(h[11]) << 16 | static_cast<uint32_t>(h[12]) << 24;
  if (size < kEventHeaderSize || size > max_event_size_) {
    Fail(ErrorCode::kCorruption, "{} at offset {}: invalid event size {} (type {})", context_,
         offset, size, static_cast<unsigned>(h[4]));
  }
  // The size comes from the file: a corrupt one may claim up to max_event_size. Compare it with
  // the bytes the file still holds before making room for it, so a bad header costs an error,
  // not a buffer of that size.
  if (size > have) {
    uint64_t left = BytesLeftInFile(offset);
    if (size > left) {
      Fail(ErrorCode::kCorruption,
           "{} at offset {}: truncated or corrupt event (type {}): header says {} bytes, the file "
           "has {} left",
           context_, offset, static_cast<unsigned>(h[4]), size, left);
    }
  }
  have = Fill(size);
  if (have < size) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: truncated event (type {}): header says {} bytes, file has {}", context_,
         offset, static_cast<unsigned>(buf_[pos_ + 4]), size, have);
  }
  event.bytes = std::string_view(reinterpret_cast<const char*>(buf_.data() + pos_), size);
  event.offset = offset;
  pos_ += size;
  return true;
}

uint64_t BinlogFileReader::BytesLeftInFile(uint64_t offset) const {
  struct stat st {};
  if (::fstat(::fileno(file_.get()), &st) != 0) {
    Fail(ErrorCode::kIo, "{}: cannot stat: {}", context_, std::strerror(errno));
  }
  uint64_t file_size = static_cast<uint64_t>(st.st_size);
  return file_size > offset ? file_size - offset : 0;
}

void BinlogFileReader::Seek(uint64_t offset) {
  if (offset < kBinlogMagicSize) {
    Fail(ErrorCode::kInvalidArgument, "{}: cannot seek to offset {} (events start at 4)", context_,
         offset);
  }
  if (offset >= window_offset_ && offset <= window_offset_ + end_) {
    pos_ = static_cast<size_t>(offset - window_offset_);
    return;
  }
  if (std::fseek(file_.get(), static_cast<long>(offset), SEEK_SET) != 0) {
    Fail(ErrorCode::kIo, "{}: cannot seek to offset {}: {}", context_, offset,
         std::strerror(errno));
  }
  window_offset_ = offset;
  pos_ = end_ = 0;
  eof_ = false;
}

}  // namespace rowbridge::binlog
