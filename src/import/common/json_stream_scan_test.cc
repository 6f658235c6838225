#include "import/common/json_stream_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuscope::import {
namespace json_stream_scan_test {  // this file's helpers, apart in a unity build
namespace {

// Squeezes `item` fed in pieces of `piece` bytes, as a reader's refills would.
std::string SqueezeInPieces(const std::string& item, size_t piece, size_t keep_below,
                            JsonSqueezer* sq) {
  std::string buf;
  size_t len = 0;
  for (size_t at = 0; at < item.size(); at += piece) {
    buf.resize(len);
    buf += item.substr(at, piece);
    len = sq->Squeeze(buf.data(), buf.size(), keep_below);
  }
  return buf.substr(0, len);
}

// Squeezes `item` in pieces of several sizes: each gives `want`, the removed bytes' count and the
// index of the first removed byte.
void ExpectSqueezedInEveryPiece(const std::string& item, const std::string& want,
                                size_t first_removed_at) {
  for (size_t piece : {1, 2, 3, 5, 1000}) {
    JsonSqueezer sq;
    EXPECT_EQ(SqueezeInPieces(item, piece, 0, &sq), want) << piece;
    EXPECT_EQ(sq.removed(), item.size() - want.size()) << piece;
    EXPECT_EQ(sq.first_removed_at(), first_removed_at) << piece;
  }
}

TEST(JsonSqueezer, RemovesWhitespaceOutsideStringsOnly) {
  const std::string item = ", { \"a b\" :\t[1 ,\n 2],\r\n \"c\\\" d\" : \"x \\\\\" , \"e\": 3 }";
  const std::string want = ",{\"a b\":[1 ,2],\"c\\\" d\":\"x \\\\\",\"e\":3 }";
  ExpectSqueezedInEveryPiece(item, want, 1);
}

TEST(JsonSqueezer, KeepsTheFirstBytesAsRead) {
  JsonSqueezer sq;
  std::string item = ", { \"a\" : 1 }";
  size_t len = sq.Squeeze(item.data(), item.size(), 6);
  EXPECT_EQ(item.substr(0, len), ", { \"a\":1 }");
  EXPECT_EQ(sq.first_removed_at(), 7u);  // the byte after `"a"`, where the removed space was
  sq.Reset();
  EXPECT_EQ(sq.removed(), 0u);
}

TEST(JsonSqueezer, LeavesOneSpaceAfterAScalar) {
  // Damage a squeeze must not mend: a missing comma between numbers or literals, a number cut by
  // a space. The run's first byte stays after a scalar (the next byte may not be read yet).
  const std::string item = "[10 \n 1, true\tfalse, 1\n-2, 1  e5, nul l, 3 ] , 4 \"s\"]";
  const std::string want = "[10 1,true\tfalse,1\n-2,1 e5,nul l,3 ],4 \"s\"]";
  ExpectSqueezedInEveryPiece(item, want, 4);  // "10 " kept; the '\n' after it removed
}

const char* SkipInPieces(const std::string& text, size_t piece) {
  JsonValueSkipper sk;
  sk.Start();
  for (size_t at = 0; at < text.size(); at += piece) {
    const char* end = text.data() + std::min(text.size(), at + piece);
    if (const char* after = sk.Feed(text.data() + at, end)) return after;
  }
  return nullptr;
}

TEST(JsonValueSkipper, EndsEachKindOfValueWhereItEnds) {
  struct Case {
    std::string text;
    size_t value_end;  // bytes of the value (with leading whitespace)
  };
  const Case cases[] = {
      {"  \"a\\\"]}b\" , x", 10},
      {"[1, {\"k\": \"]}\\\\\"}, [[]]] , x", 24},
      {"{\"a\": {\"b\": [\"}\"]}}}", 19},
      {"-12.5e3, x", 7},
      {"true}", 4},
      {" null ]", 5},
  };
  for (const Case& c : cases) {
    for (size_t piece : {1, 2, 7, 1000}) {
      const char* after = SkipInPieces(c.text, piece);
      ASSERT_NE(after, nullptr) << c.text << " / " << piece;
      EXPECT_EQ(static_cast<size_t>(after - c.text.data()), c.value_end)
          << c.text << " / " << piece;
    }
  }
}

TEST(JsonValueSkipper, AnUnfinishedValueConsumesEverything) {
  EXPECT_EQ(SkipInPieces("[1, [2, \"]\"]", 3), nullptr);
  EXPECT_EQ(SkipInPieces("\"abc\\\"", 1), nullptr);
  EXPECT_EQ(SkipInPieces("   ", 1), nullptr);
}

}  // namespace
}  // namespace json_stream_scan_test
}  // namespace gpuscope::import
