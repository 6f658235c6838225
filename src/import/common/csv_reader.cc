#include "import/common/csv_reader.h"

namespace gpuscope::import {

base::StatusOr<CsvReader> CsvReader::Open(const std::string& path) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  return CsvReader(std::move(src));
}

bool CsvReader::Fill() {
  if (eof_) return false;
  if (pos_ > 0) {  // drop consumed bytes
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  size_t old = buf_.size();
  buf_.resize(old + (1 << 20));
  long long n = src_->Read(buf_.data() + old, 1 << 20);
  if (n <= 0) {
    buf_.resize(old);
    eof_ = true;
    if (n < 0) error_ = src_->error();
    return false;
  }
  buf_.resize(old + static_cast<size_t>(n));
  return true;
}

bool CsvReader::Next(std::vector<std::string_view>* fields) {
  for (;;) {
    fields->clear();
    unquoted_.clear();
    // Find the end of the record (a newline outside quotes), reading more as needed.
    size_t i = pos_;
    bool quoted = false;
    uint64_t newlines = 0;
    for (;;) {
      if (i >= buf_.size()) {
        size_t consumed = i - pos_;
        bool more = Fill();  // may move the unread bytes to the front
        i = pos_ + consumed;
        if (!more) break;
        continue;
      }
      char c = buf_[i];
      if (c == '"')
        quoted = !quoted;
      else if (c == '\n') {
        ++newlines;
        if (!quoted) break;
      }
      ++i;
    }
    if (i >= buf_.size() && pos_ >= buf_.size()) return false;
    size_t end = i;  // at '\n' or buffer end
    std::string_view rec(buf_.data() + pos_, end - pos_);
    pos_ = end < buf_.size() ? end + 1 : end;
    line_ = next_line_;
    next_line_ += newlines > 0 ? newlines : 1;
    if (!rec.empty() && rec.back() == '\r') rec.remove_suffix(1);
    if (rec.empty()) continue;
    // Split into fields.
    size_t p = 0;
    for (;;) {
      if (p < rec.size() && rec[p] == '"') {
        size_t q = p + 1;
        bool doubled = false;
        for (;;) {
          size_t close = rec.find('"', q);
          if (close == std::string_view::npos) {  // unterminated: take the rest
            q = rec.size();
            break;
          }
          if (close + 1 < rec.size() && rec[close + 1] == '"') {
            doubled = true;
            q = close + 2;
            continue;
          }
          q = close;
          break;
        }
        std::string_view inner = rec.substr(p + 1, q - p - 1);
        if (doubled) {
          std::string s;
          for (size_t k = 0; k < inner.size(); ++k) {
            s += inner[k];
            if (inner[k] == '"' && k + 1 < inner.size() && inner[k + 1] == '"') ++k;
          }
          unquoted_.push_back(std::move(s));
          inner = unquoted_.back();
        }
        fields->push_back(inner);
        p = q + 1;
        size_t comma = rec.find(',', p);
        if (comma == std::string_view::npos) break;
        p = comma + 1;
      } else {
        size_t comma = rec.find(',', p);
        fields->push_back(
            rec.substr(p, comma == std::string_view::npos ? std::string_view::npos : comma - p));
        if (comma == std::string_view::npos) break;
        p = comma + 1;
      }
    }
    return true;
  }
}

CsvHeader::CsvHeader(const std::vector<std::string_view>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    std::string n(names[i]);
    // Tolerate a UTF-8 BOM and surrounding spaces.
    if (i == 0 && n.rfind("\xef\xbb\xbf", 0) == 0) n.erase(0, 3);
    while (!n.empty() && n.back() == ' ') n.pop_back();
    while (!n.empty() && n.front() == ' ') n.erase(0, 1);
    index_.emplace(std::move(n), static_cast<int>(i));
  }
}

int CsvHeader::operator[](std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? -1 : it->second;
}

}  // namespace gpuscope::import
