// A small stand-in for C++23's std::expected, limited to what the project uses.
// When the project moves to C++23 this header becomes `using std::expected;`.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace inarow {

template <class E>
class unexpected {
 public:
  explicit unexpected(E e) : error_(std::move(e)) {}
  const E& error() const& { return error_; }
  E&& error() && { return std::move(error_); }

 private:
  E error_;
};

template <class E>
unexpected(E) -> unexpected<E>;

template <class T, class E>
class [[nodiscard]] expected {
 public:
  using value_type = T;
  using error_type = E;

  expected() requires std::is_default_constructible_v<T> : v_(std::in_place_index<0>) {}
  expected(T v)
      : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT(google-explicit-constructor)
  template <class G>
  expected(unexpected<G> u) : v_(std::in_place_index<1>, E(std::move(u).error())) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const& {
    assert(!has_value());
    return std::get<1>(v_);
  }
  E&& error() && {
    assert(!has_value());
    return std::get<1>(std::move(v_));
  }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, E> v_;
};

// expected<void, E>: success carries nothing.
template <class E>
class [[nodiscard]] expected<void, E> {
 public:
  expected() = default;
  template <class G>
  expected(unexpected<G> u) : error_(E(std::move(u).error())), ok_(false) {}  // NOLINT

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  void value() const { assert(ok_); }
  const E& error() const& {
    assert(!ok_);
    return error_;
  }

 private:
  E error_{};
  bool ok_ = true;
};

}  // namespace inarow
