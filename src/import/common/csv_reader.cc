#include "import/common/csv_reader.h"

#include <algorithm>

namespace gpuscope::import {

namespace {
// A quoted field spanning more lines than this is a quote that was never closed.
constexpr uint64_t kMaxLinesInField = 100;
}  // namespace

base::StatusOr<CsvReader> CsvReader::Open(const std::string& path, model::ProblemLog* problems) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  return CsvReader(std::move(src), problems, path);
}

base::StatusOr<CsvFile> OpenCsv(const std::string& path, std::string_view what,
                                model::ProblemLog* problems) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(path, problems));
  std::vector<std::string_view> fields;
  if (!reader.Next(&fields)) return base::Status::Error(path + ": empty " + std::string(what));
  std::vector<std::string> names(fields.begin(), fields.end());
  CsvHeader header(fields);
  return CsvFile{std::move(reader), std::move(names), std::move(header)};
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
    if (n < 0) error_ = src_->error() + " (after line " + std::to_string(next_line_ - 1) + ")";
    return false;
  }
  buf_.resize(old + static_cast<size_t>(n));
  return true;
}

void CsvReader::Problem(model::ProblemKind kind, uint64_t line, const std::string& what) {
  if (problems_) problems_->Add(kind, path_ + " line " + std::to_string(line) + ": " + what);
}

size_t CsvReader::RecordEnd(uint64_t* newlines, bool* cut) {
  size_t i = pos_;
  bool quoted = false;
  size_t first_quoted_newline = std::string::npos;  // offset from pos_ (pos_ moves on Fill)
  uint64_t quoted_lines = 0;
  for (;;) {
    if (i >= buf_.size()) {
      size_t consumed = i - pos_;
      bool more = Fill();  // may move the unread bytes to the front
      i = pos_ + consumed;
      if (!more) break;
      continue;
    }
    char c = buf_[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (c == '\n') {
      ++*newlines;
      if (!quoted) return i;
      if (first_quoted_newline == std::string::npos) first_quoted_newline = i - pos_;
      if (++quoted_lines > kMaxLinesInField) break;
    }
    ++i;
  }
  if (quoted && first_quoted_newline != std::string::npos) {
    *cut = true;
    *newlines = 1;
    return pos_ + first_quoted_newline;
  }
  return i;
}

void CsvReader::Split(std::string_view rec, std::vector<std::string_view>* fields) {
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
      size_t comma = p >= rec.size() ? std::string_view::npos : rec.find(',', p);
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
}

bool CsvReader::Next(std::vector<std::string_view>* fields) {
  if (!started_) {
    started_ = true;
    while (buf_.size() - pos_ < 3 && Fill()) {
    }
    if (buf_.compare(pos_, 3, "\xef\xbb\xbf") == 0) pos_ += 3;
  }
  for (;;) {
    fields->clear();
    unquoted_.clear();
    uint64_t newlines = 0;
    bool cut = false;
    size_t end = RecordEnd(&newlines, &cut);  // at '\n' or the buffer's end
    if (end >= buf_.size() && pos_ >= buf_.size()) return false;
    bool at_eof = end >= buf_.size();
    std::string_view rec(buf_.data() + pos_, end - pos_);
    pos_ = at_eof ? end : end + 1;
    line_ = next_line_;
    next_line_ += newlines > 0 ? newlines : 1;
    if (!rec.empty() && rec.back() == '\r') rec.remove_suffix(1);
    if (rec.empty()) continue;
    if (rec.find('\0') != std::string_view::npos) {
      Problem(model::ProblemKind::kCsvNulByte, line_,
              "a NUL byte inside the row (a damaged file); row dropped");
      continue;
    }
    if (cut) {
      Problem(model::ProblemKind::kCsvUnbalancedQuote, line_,
              "a quote is opened and never closed; the row ends at the end of its line");
    }
    Split(rec, fields);
    if (header_fields_ == 0) {
      header_fields_ = fields->size();
      return true;
    }
    bool quote_open = std::count(rec.begin(), rec.end(), '"') % 2 == 1;
    if (at_eof && (fields->size() < header_fields_ || quote_open) && error_.empty()) {
      error_ = "the file ends in the middle of a row (line " + std::to_string(line_) + ", " +
               std::to_string(fields->size()) + " of " + std::to_string(header_fields_) +
               " fields): truncated; the partial row is dropped";
      fields->clear();
      return false;
    }
    if (fields->size() != header_fields_) {
      Problem(model::ProblemKind::kCsvFieldCount, line_,
              std::to_string(fields->size()) + " fields where the header has " +
                  std::to_string(header_fields_) + "; kept (fields are read by column name)");
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
