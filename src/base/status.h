#pragma once
// Status / StatusOr: how every layer reports a failure without exceptions.
// A Status is either ok or carries one human-readable line that already says what went wrong,
// where, and what to do; the CLI prints it as is and exits with code 2.

#include <optional>
#include <string>
#include <utility>

namespace gpuscope::base {

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message), true); }

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  Status(std::string message, bool failed) : message_(std::move(message)), failed_(failed) {}
  std::string message_;
  bool failed_ = false;
};

// Holds either a value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

#define GPUSCOPE_RETURN_IF_ERROR(expr)     \
  do {                                     \
    ::gpuscope::base::Status _st = (expr); \
    if (!_st.ok()) return _st;             \
  } while (0)

// `GPUSCOPE_ASSIGN_OR_RETURN(auto x, MakeX());`: declares (or assigns) x from the value of a
// StatusOr, or returns its Status from the enclosing function.
#define GPUSCOPE_ASSIGN_OR_RETURN(lhs, expr) \
  GPUSCOPE_ASSIGN_OR_RETURN_IMPL(GPUSCOPE_STATUS_CONCAT(_statusor_, __LINE__), lhs, expr)
#define GPUSCOPE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()
#define GPUSCOPE_STATUS_CONCAT(a, b) GPUSCOPE_STATUS_CONCAT_INNER(a, b)
#define GPUSCOPE_STATUS_CONCAT_INNER(a, b) a##b

}  // namespace gpuscope::base
