// The transport's byte-level pieces: checksum, LZ4 codec, row batch wire form,
// the frame decoder under garbage, and the synthetic row generator.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "models/base/random.h"
#include "transport/data/row_generator.h"
#include "transport/wire/checksum.h"
#include "transport/wire/frame.h"
#include "transport/wire/lz4_codec.h"
#include "transport/wire/row_batch.h"

namespace exsim::transport {
namespace {

RowBatch sample_batch(std::int64_t rows, double random_share, std::uint64_t seed = 1) {
  RowShape shape{24, VarLenDistribution::uniform(20, 60)};
  RowGenerator generator(shape, random_share, seed);
  RowBatch batch;
  generator.fill(batch, rows);
  return batch;
}

TEST_CASE("the checksum sees every byte") {
  std::vector<char> data(1000);
  std::iota(data.begin(), data.end(), 0);
  const auto sum = checksum64(data.data(), data.size());
  CHECK(sum == checksum64(data.data(), data.size()));
  for (std::size_t i : {0u, 7u, 8u, 500u, 991u, 999u}) {
    data[i] ^= 1;
    CHECK(checksum64(data.data(), data.size()) != sum);
    data[i] ^= 1;
  }
  CHECK(checksum64(data.data(), 999) != sum);  // length matters
  CHECK(checksum64(data.data(), 10, 1) != checksum64(data.data(), 10, 2));
  // Zero bytes appended are not invisible: the length is part of the sum.
  std::vector<char> padded(data);
  padded.resize(1003, 0);
  CHECK(checksum64(padded.data(), padded.size()) != sum);
}

TEST_CASE("the checksum sees bytes moved, not only changed") {
  // What a framing bug does: the same bytes in another order.
  std::vector<char> data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 % 251);
  const auto sum = checksum64(data.data(), data.size());
  std::vector<char> moved(data);
  std::swap_ranges(moved.begin(), moved.begin() + 8, moved.begin() + 64);  // same lane, another block
  CHECK(checksum64(moved.data(), moved.size()) != sum);
  moved = data;
  std::swap_ranges(moved.begin(), moved.begin() + 8, moved.begin() + 8 + 8);  // another lane, same block
  CHECK(checksum64(moved.data(), moved.size()) != sum);
  moved = data;
  std::rotate(moved.begin(), moved.begin() + 100, moved.begin() + 1100);  // a row moved
  CHECK(checksum64(moved.data(), moved.size()) != sum);
  moved = data;
  std::copy(moved.begin(), moved.begin() + 64, moved.begin() + 64);  // a block repeated over the next
  CHECK(checksum64(moved.data(), moved.size()) != sum);
  moved = data;
  moved[7] ^= static_cast<char>(0x80);  // a word's top bit, in two blocks an even number apart
  moved[135] ^= static_cast<char>(0x80);
  CHECK(checksum64(moved.data(), moved.size()) != sum);
  // Any word's top bit with the same word's a power of two blocks later.
  for (std::size_t apart = 2; apart < 64; apart *= 2) {
    moved = data;
    moved[3] ^= static_cast<char>(0x80);
    moved[3 + 64 * apart] ^= static_cast<char>(0x80);
    CHECK(checksum64(moved.data(), moved.size()) != sum);
  }
}

TEST_CASE("summing while copying gives the checksum of a second pass, in any split") {
  Random random(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<char> data(random.below(3000));
    for (char& c : data) c = static_cast<char>(random.next());
    const std::uint64_t seed = random.next();
    std::vector<char> copy(data.size());
    Checksum64 sums;
    for (std::size_t i = 0; i < data.size();) {
      const std::size_t piece = std::min<std::size_t>(data.size() - i, random.below(150));
      if (random.below(2) == 0) {
        sums.copy_and_add(copy.data() + i, data.data() + i, piece);
      } else {
        sums.add(data.data() + i, piece);
        std::memcpy(copy.data() + i, data.data() + i, piece);
      }
      i += piece;
    }
    CHECK(sums.value(seed) == checksum64(data.data(), data.size(), seed));
    CHECK(copy == data);
  }
}

TEST_CASE("a payload summed as it is copied checks out, and a flipped bit anywhere in it is caught") {
  // Rows of 100-200 bytes and of 8: payloads that are and are not whole 64-byte blocks.
  for (const auto& shape : {RowShape{100, VarLenDistribution::uniform(0, 100)}, RowShape{8, VarLenDistribution{}}}) {
    RowGenerator generator(shape, 1.0, 5);
    RowBatch batch;
    generator.fill(batch, 301);
    Lz4Codec codec;
    ByteBuffer scratch;
    EncodedBatch encoded;
    encode_batch(batch, false, codec, scratch, encoded);
    RowBatchHeader header;
    std::string error;
    REQUIRE(RowBatchHeader::decode(encoded.header, 1 << 30, header, error));
    const std::vector<char> payload(batch.data().begin(), batch.data().end());
    RowBatch received;
    REQUIRE(decode_batch(header, encoded.offsets, payload.data(), received, error));
    CHECK(received.data() == batch.data());
    CHECK(received.checksum() == header.checksum);
    for (std::size_t byte : {std::size_t{0}, std::size_t{31}, std::size_t{63}, std::size_t{64}, payload.size() / 2,
                             payload.size() - 1}) {
      for (int bit : {0, 7}) {
        std::vector<char> flipped = payload;
        flipped[byte] = static_cast<char>(flipped[byte] ^ (1 << bit));
        CAPTURE(byte);
        CHECK_FALSE(decode_batch(header, encoded.offsets, flipped.data(), received, error));
      }
    }
  }
}

TEST_CASE("LZ4 round trip; incompressible data is reported as not worth it") {
  Lz4Codec codec;
  RowBatch compressible = sample_batch(2000, 0.2);
  std::vector<char> out(Lz4Codec::bound(compressible.tuple_bytes()));
  const std::size_t size = codec.compress(compressible.data().data(), compressible.tuple_bytes(), out.data(), out.size());
  REQUIRE(size > 0);
  CHECK(size < compressible.tuple_bytes());
  std::vector<char> back(compressible.tuple_bytes());
  CHECK(Lz4Codec::decompress(out.data(), size, back.data(), back.size()));
  CHECK(std::equal(back.begin(), back.end(), compressible.data().begin(), compressible.data().end()));
  CHECK_FALSE(Lz4Codec::decompress(out.data(), size, back.data(), back.size() - 1));  // wrong announced size
  Random random(3);
  std::vector<char> noise(4096);
  for (auto& c : noise) c = static_cast<char>(random.next());
  std::vector<char> noise_out(Lz4Codec::bound(noise.size()));
  CHECK(codec.compress(noise.data(), noise.size(), noise_out.data(), noise_out.size()) == 0);
  CHECK_FALSE(Lz4Codec::decompress(noise.data(), noise.size(), back.data(), back.size()));  // garbage in
}

TEST_CASE("a row batch survives its wire form, compressed or not") {
  Lz4Codec codec;
  ByteBuffer scratch;
  for (bool compress : {false, true}) {
    CAPTURE(compress);
    const RowBatch original = sample_batch(777, 0.3);
    RowBatch batch = original;
    EncodedBatch encoded;
    encode_batch(batch, compress, codec, scratch, encoded);
    CHECK(encoded.fields.rows == 777);
    CHECK((encoded.fields.compression == Compression::kLz4) == compress);
    RowBatchHeader header;
    std::string error;
    REQUIRE(RowBatchHeader::decode(encoded.header, 1 << 30, header, error));
    RowBatch received;
    REQUIRE(decode_batch(header, encoded.offsets, encoded.payload, received, error));
    CHECK(received.offsets() == original.offsets());
    CHECK(received.data() == original.data());
    // Compressing swaps the payload into the batch and its old buffer into the scratch.
    CHECK(batch.tuple_bytes() == (compress ? header.payload_bytes : original.tuple_bytes()));
    if (compress) CHECK(scratch.capacity() >= original.tuple_bytes());
    CHECK(header.wire_bytes() == RowBatchHeader::kSize + 4 * 777 + header.payload_bytes);
  }
}

TEST_CASE("a corrupted row batch is refused with a reason") {
  Lz4Codec codec;
  ByteBuffer scratch;
  RowBatch batch = sample_batch(100, 1.0);
  EncodedBatch encoded;
  encode_batch(batch, false, codec, scratch, encoded);
  RowBatchHeader header;
  std::string error;
  REQUIRE(RowBatchHeader::decode(encoded.header, 1 << 30, header, error));
  std::vector<char> payload(batch.data().begin(), batch.data().end());
  payload[50] ^= 0x40;
  RowBatch received;
  CHECK_FALSE(decode_batch(header, encoded.offsets, payload.data(), received, error));
  CHECK(error.find("checksum mismatch") != std::string::npos);
  std::vector<std::uint32_t> offsets(batch.offsets());
  offsets[10] = 1u << 30;
  CHECK_FALSE(decode_batch(header, reinterpret_cast<const char*>(offsets.data()), batch.data().data(), received, error));
  CHECK(error.find("row 10 starts at") != std::string::npos);
  CHECK_FALSE(RowBatchHeader::decode(encoded.header, 100, header, error));  // over the size limit
  CHECK(error.find("over the limit of 100") != std::string::npos);
  char bad[RowBatchHeader::kSize];
  std::memcpy(bad, encoded.header, sizeof bad);
  bad[0] = 'X';
  CHECK_FALSE(RowBatchHeader::decode(bad, 1 << 30, header, error));
  CHECK(error.find("not a row batch") != std::string::npos);
}

std::vector<char> frame_bytes(FrameType type, std::uint64_t call, const std::string& body) {
  FrameHeader h;
  h.type = type;
  h.call_id = call;
  h.send_time_ns = 123456789;
  h.body_length = static_cast<std::uint32_t>(body.size());
  std::vector<char> out(FrameHeader::kSize + body.size());
  h.encode(out.data());
  std::memcpy(out.data() + FrameHeader::kSize, body.data(), body.size());
  return out;
}

TEST_CASE("frames come out whole whatever the chunking") {
  std::vector<char> stream;
  for (std::uint64_t i = 0; i < 50; ++i) {
    auto f = frame_bytes(FrameType::kTransmitData, i, std::string(i * 37 % 300, static_cast<char>('a' + i % 26)));
    stream.insert(stream.end(), f.begin(), f.end());
  }
  Random random(5);
  for (int trial = 0; trial < 20; ++trial) {
    FrameDecoder decoder(1024);
    std::uint64_t expected = 0;
    for (std::size_t at = 0; at < stream.size();) {
      const std::size_t chunk = std::min<std::size_t>(1 + random.below(97), stream.size() - at);
      REQUIRE(decoder.push(stream.data() + at, chunk));
      at += chunk;
      while (auto frame = decoder.next()) {
        CHECK(frame->header.call_id == expected);
        CHECK(frame->header.send_time_ns == 123456789);
        CHECK(frame->header.body_length == expected * 37 % 300);
        if (frame->header.body_length > 0) CHECK(frame->body[0] == static_cast<char>('a' + expected % 26));
        ++expected;
      }
    }
    CHECK(expected == 50);
  }
}

TEST_CASE("the decoder tells how much of the frame being received is still to come") {
  // The connection asks the kernel to wake it only once that much has arrived.
  FrameDecoder decoder(1 << 20);
  auto big = frame_bytes(FrameType::kTransmitData, 1, std::string(300000, 'b'));
  auto small = frame_bytes(FrameType::kResponse, 2, "ok");
  CHECK(decoder.missing() == 0);  // nothing known yet
  REQUIRE(decoder.push(big.data(), 20));
  CHECK(decoder.missing() == 0);  // the header is not whole: its length is not known
  REQUIRE(decoder.push(big.data() + 20, 1000));
  CHECK(decoder.missing() == big.size() - 1020);
  REQUIRE(decoder.push(big.data() + 1020, big.size() - 1020 - 1));
  CHECK(decoder.missing() == 1);
  REQUIRE(decoder.push(big.data() + big.size() - 1, 1));
  CHECK(decoder.missing() == 0);  // whole, waiting to be taken
  REQUIRE(decoder.push(small.data(), FrameHeader::kSize));
  REQUIRE(decoder.next().has_value());
  CHECK(decoder.missing() == 2);  // the response's body
  REQUIRE(decoder.push(small.data() + FrameHeader::kSize, 2));
  REQUIRE(decoder.next().has_value());
  CHECK(decoder.missing() == 0);
}

TEST_CASE("a frame over the limit is refused before its body is buffered") {
  FrameDecoder decoder(1000);
  auto f = frame_bytes(FrameType::kTransmitData, 1, std::string(2000, 'x'));
  CHECK_FALSE(decoder.push(f.data(), FrameHeader::kSize));
  CHECK(decoder.error() == "frame of 2000 bytes over the limit of 1000");
  CHECK(decoder.buffered() == 0);
  CHECK_FALSE(decoder.push(f.data() + FrameHeader::kSize, 100));  // stays failed
  CHECK_FALSE(decoder.next().has_value());
}

TEST_CASE("garbage never crashes the frame decoder nor makes it allocate past its limit") {
  // Seeded random streams: pure noise, and valid frames with random bytes flipped.
  Random random(11);
  const std::uint32_t limit = 4096;
  int failures = 0, frames = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    FrameDecoder decoder(limit);
    std::vector<char> stream;
    if (trial % 2 == 0) {
      stream.resize(random.below(3000));
      for (auto& c : stream) c = static_cast<char>(random.next());
    } else {
      for (int k = 0; k < 5; ++k) {
        auto f = frame_bytes(static_cast<FrameType>(1 + random.below(6)), k, std::string(random.below(500), 'z'));
        stream.insert(stream.end(), f.begin(), f.end());
      }
      for (int flips = 0; flips < 3; ++flips) stream[random.below(stream.size())] = static_cast<char>(random.next());
    }
    for (std::size_t at = 0; at < stream.size();) {
      const std::size_t chunk = std::min<std::size_t>(1 + random.below(512), stream.size() - at);
      const bool ok = decoder.push(stream.data() + at, chunk);
      at += chunk;
      CHECK(decoder.capacity() <= 2 * (FrameHeader::kSize + limit + 512));
      while (auto frame = decoder.next()) {
        CHECK(frame->header.body_length <= limit);
        ++frames;
      }
      if (!ok) {
        ++failures;
        CHECK_FALSE(decoder.error().empty());
        break;
      }
    }
  }
  CHECK(failures > 500);  // noise is caught
  CHECK(frames > 1000);   // and intact frames before a flipped byte still come out
}

TEST_CASE("generated rows have the shape asked for and about the LZ4 ratio asked for") {
  RowShape shape{21, VarLenDistribution::uniform(40, 120)};
  RowGenerator generator(shape, 0.5, 7);
  RowBatch batch;
  generator.fill(batch, 20000);
  CHECK(batch.rows() == 20000);
  CHECK(static_cast<double>(batch.tuple_bytes()) / 20000 == doctest::Approx(61.0).epsilon(0.02));
  for (std::uint32_t i = 0; i + 1 < batch.rows(); ++i) {
    const auto size = batch.offsets()[i + 1] - batch.offsets()[i];
    CHECK(size >= 21);
    CHECK(size <= 21 + 120);
  }
  for (double target : {0.3, 0.55, 0.8}) {
    CAPTURE(target);
    const RandomShareFit c = calibrate_random_share(shape, target, 9);
    CHECK(c.achieved_ratio == doctest::Approx(target).epsilon(0.08));
  }
  CHECK(calibrate_random_share(shape, 1.0, 9).achieved_ratio >= 0.99);
}

}  // namespace
}  // namespace exsim::transport
