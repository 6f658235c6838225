#include "import/kineto/op_args_cache.h"

#include <gtest/gtest.h>

#include <string>

#include "model/op_args.h"

namespace gpuscope::import::kineto {
namespace op_args_cache_test {

// A hit gives the id that encoding and interning afresh gives.
TEST(OpArgsCache, GivesTheIdOfTheEncodedText) {
  base::StringPool pool;
  OpArgsCache cache;
  const std::string dims = "[[2, 3], []]", types = R"(["float", "Scalar"])", concrete = "[]";
  const base::StringId first = cache.Get(pool, dims, types, concrete);
  EXPECT_EQ(pool.Get(first), model::EncodeOpArgs(dims, types, concrete, {}));
  const size_t names = pool.size();
  EXPECT_EQ(cache.Get(pool, std::string(dims), std::string(types), std::string(concrete)), first);
  EXPECT_EQ(pool.size(), names);  // nothing new interned
}

// Texts that join to the same bytes are different argument lists.
TEST(OpArgsCache, KeysEachTextSeparately) {
  base::StringPool pool;
  OpArgsCache cache;
  const base::StringId a = cache.Get(pool, "[[1]]", "[]", "");
  const base::StringId b = cache.Get(pool, "[[1]][]", "", "");
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.Get(a), model::EncodeOpArgs("[[1]]", "[]", "", {}));
  EXPECT_EQ(pool.Get(b), model::EncodeOpArgs("[[1]][]", "", "", {}));
}

// Past its bound the cache starts again and still answers right.
TEST(OpArgsCache, StaysRightPastItsBound) {
  base::StringPool pool;
  OpArgsCache cache;
  const base::StringId first = cache.Get(pool, "[[7]]", "", "");
  for (int i = 0; i < (1 << 16) + 10; ++i) {
    const std::string dims = "[[" + std::to_string(i) + "]]";
    ASSERT_EQ(pool.Get(cache.Get(pool, dims, "", "")), model::EncodeOpArgs(dims, "", "", {}));
  }
  EXPECT_EQ(cache.Get(pool, "[[7]]", "", ""), first);
}

}  // namespace op_args_cache_test
}  // namespace gpuscope::import::kineto
