#include "python/arrow_export.h"

#include <cstring>
#include <stdexcept>

namespace gpuscope::python {
namespace {

// What an exported schema owns: its strings and its children's structs.
struct SchemaHolder {
  std::string format, name;
  std::vector<ArrowSchema*> children;
};

// What an exported array owns: the node (buffers and their owners) and the children's structs.
struct ArrayHolder {
  std::unique_ptr<ArrowNode> node;
  std::shared_ptr<const ArrowNode> shared;  // a dictionary shared by several columns
  std::vector<ArrowArray*> children;
};

// The release callback of an Arrow C struct made here (ArrowSchema with a SchemaHolder, ArrowArray
// with an ArrayHolder): its children, its dictionary, then its holder.
template <typename Arrow, typename Holder>
void Release(Arrow* a) {
  if (!a || !a->release) return;
  auto* h = static_cast<Holder*>(a->private_data);
  for (Arrow* c : h->children) {
    if (c->release) c->release(c);
    delete c;
  }
  if (a->dictionary) {
    if (a->dictionary->release) a->dictionary->release(a->dictionary);
    delete a->dictionary;
  }
  delete h;
  a->release = nullptr;
}

void ReleaseSchema(ArrowSchema* s) { Release<ArrowSchema, SchemaHolder>(s); }
void ReleaseArray(ArrowArray* a) { Release<ArrowArray, ArrayHolder>(a); }

void FillSchema(const ArrowNode& n, ArrowSchema* s) {
  auto* h = new SchemaHolder{n.format, n.name, {}};
  s->format = h->format.c_str();
  s->name = h->name.c_str();
  s->metadata = nullptr;
  s->flags = n.nullable ? ARROW_FLAG_NULLABLE : 0;
  for (const auto& c : n.children) {
    auto* cs = new ArrowSchema{};
    FillSchema(*c, cs);
    h->children.push_back(cs);
  }
  s->n_children = static_cast<int64_t>(h->children.size());
  s->children = h->children.empty() ? nullptr : h->children.data();
  s->dictionary = nullptr;
  if (n.dictionary) {
    s->dictionary = new ArrowSchema{};
    FillSchema(*n.dictionary, s->dictionary);
  }
  s->release = &ReleaseSchema;
  s->private_data = h;
}

// Exports `node` (owned) or `shared` (a node several arrays refer to) into `a`.
void FillArray(std::unique_ptr<ArrowNode> node, std::shared_ptr<const ArrowNode> shared,
               ArrowArray* a) {
  auto* h = new ArrayHolder{std::move(node), std::move(shared), {}};
  const ArrowNode& n = h->node ? *h->node : *h->shared;
  a->length = n.length;
  a->null_count = n.null_count;
  a->offset = 0;
  a->n_buffers = static_cast<int64_t>(n.buffers.size());
  a->buffers = const_cast<const void**>(n.buffers.data());
  if (h->node) {
    for (auto& c : h->node->children) {
      auto* ca = new ArrowArray{};
      FillArray(std::move(c), nullptr, ca);
      h->children.push_back(ca);
    }
  }
  a->n_children = static_cast<int64_t>(h->children.size());
  a->children = h->children.empty() ? nullptr : h->children.data();
  a->dictionary = nullptr;
  if (h->node && h->node->dictionary) {
    a->dictionary = new ArrowArray{};
    FillArray(std::move(h->node->dictionary), nullptr, a->dictionary);
  }
  a->release = &ReleaseArray;
  a->private_data = h;
}

// A copy of a shared dictionary node whose buffers stay owned by the shared one.
std::unique_ptr<ArrowNode> Alias(const std::shared_ptr<const ArrowNode>& d) {
  auto n = std::make_unique<ArrowNode>();
  n->format = d->format, n->name = d->name, n->length = d->length, n->buffers = d->buffers;
  n->keep.push_back(d);
  return n;
}

}  // namespace

std::unique_ptr<ArrowNode> Primitive(std::string name, const char* format, int64_t length,
                                     const void* data, std::shared_ptr<const void> owner) {
  auto n = std::make_unique<ArrowNode>();
  n->format = format, n->name = std::move(name), n->length = length;
  n->buffers = {nullptr, data};
  n->keep.push_back(std::move(owner));
  return n;
}

std::unique_ptr<ArrowNode> NullableInt64(std::string name, std::vector<int64_t> values,
                                         const std::vector<uint8_t>& valid) {
  auto data = std::make_shared<std::vector<int64_t>>(std::move(values));
  auto bits = std::make_shared<std::vector<uint8_t>>((data->size() + 7) / 8, 0);
  int64_t nulls = 0;
  for (size_t i = 0; i < data->size(); ++i) {
    if (valid[i])
      (*bits)[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    else
      ++nulls;
  }
  auto n = std::make_unique<ArrowNode>();
  n->format = "l", n->name = std::move(name), n->length = static_cast<int64_t>(data->size());
  n->nullable = true, n->null_count = nulls;
  n->buffers = {nulls ? bits->data() : nullptr, data->data()};
  n->keep = {data, bits};
  return n;
}

// A string array's buffers: `chars` (the strings end to end) and their offsets, as Arrow's utf8
// ("u", int32 offsets) or large_utf8 ("U", int64).
template <typename Offset>
void SetStrings(ArrowNode& n, const char* format, const std::vector<std::string_view>& strings,
                std::shared_ptr<std::vector<char>> chars) {
  auto offsets = std::make_shared<std::vector<Offset>>(strings.size() + 1, 0);
  for (size_t i = 0; i < strings.size(); ++i)
    (*offsets)[i + 1] = (*offsets)[i] + static_cast<Offset>(strings[i].size());
  n.format = format;
  n.buffers = {nullptr, offsets->data(), chars->data()};
  n.keep = {offsets, std::move(chars)};
}

std::shared_ptr<const ArrowNode> StringArray(const std::vector<std::string_view>& strings) {
  size_t total = 0;
  for (auto s : strings) total += s.size();
  auto n = std::make_shared<ArrowNode>();
  n->length = static_cast<int64_t>(strings.size());
  auto chars = std::make_shared<std::vector<char>>();
  chars->reserve(total);
  for (auto s : strings) chars->insert(chars->end(), s.begin(), s.end());
  if (total < (size_t{1} << 31))
    SetStrings<int32_t>(*n, "u", strings, std::move(chars));
  else
    SetStrings<int64_t>(*n, "U", strings, std::move(chars));
  return n;
}

std::unique_ptr<ArrowNode> Dictionary(std::string name, int64_t length, const uint32_t* ids,
                                      std::shared_ptr<const void> owner,
                                      std::shared_ptr<const ArrowNode> dict) {
  if (dict->length >= (int64_t{1} << 31))
    throw std::runtime_error("more distinct names than an int32 dictionary holds");
  // The ids are below 2^31, so their bits read as int32 unchanged: no copy.
  auto n = Primitive(std::move(name), "i", length, ids, std::move(owner));
  n->dictionary = Alias(dict);
  return n;
}

std::unique_ptr<ArrowNode> Triples(std::string name, int64_t n, const uint32_t* data,
                                   std::shared_ptr<const void> owner) {
  auto list = std::make_unique<ArrowNode>();
  list->format = "+w:3", list->name = std::move(name), list->length = n;
  list->buffers = {nullptr};
  list->children.push_back(Primitive("item", "I", 3 * n, data, std::move(owner)));
  return list;
}

void ExportBatch(std::vector<std::unique_ptr<ArrowNode>> columns, int64_t rows, ArrowSchema* schema,
                 ArrowArray* array) {
  auto batch = std::make_unique<ArrowNode>();
  batch->format = "+s", batch->length = rows;
  batch->buffers = {nullptr};
  batch->children = std::move(columns);
  FillSchema(*batch, schema);
  FillArray(std::move(batch), nullptr, array);
}

}  // namespace gpuscope::python
