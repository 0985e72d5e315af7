// hearth push's parts that need no server: the ingest name, query and body; the endpoint,
// tenant and credential files; the retry policy; the spool's entries, bound, lock and modes.
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <protozero/pbf_reader.hpp>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "bin/hearth/cmd_push.h"
#include "push/endpoint.h"
#include "push/ingest_request.h"
#include "push/sender.h"
#include "push/spool.h"
#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_reader.h"
#include "tests/unit/temp_dir.h"

namespace hearth::push {
namespace {

using testing_support::TempDir;

ProfileMeta push_meta() {
  ProfileMeta m;
  m.service = "api-server";
  m.type = ProfileType::kWall;
  m.labels = {{"zone", "eu-1"}, {"host", "db7"}};
  m.from = 1700000000;
  m.until = 1700000030;
  m.sample_rate = 10;
  return m;
}

void push_write(const std::string& path, std::string_view text, mode_t mode = 0600) {
  std::ofstream(path, std::ios::binary) << text;
  ::chmod(path.c_str(), mode);
}

TEST(PushName, FoldedEndsInTheTypeAndSortsLabels) {
  EXPECT_EQ(ingest_name(push_meta(), BodyFormat::kFolded), "api-server.wall{host=db7,zone=eu-1}");
  ProfileMeta m = push_meta();
  m.type = ProfileType::kCpu;
  m.labels.clear();
  EXPECT_EQ(ingest_name(m, BodyFormat::kFolded), "api-server.cpu{}");
}

TEST(PushName, PprofNamesOnlyThePrefix) {
  // The pprof body's sample types say the type: the name is its prefix (the server adds it).
  EXPECT_EQ(ingest_name(push_meta(), BodyFormat::kPprof), "api-server{host=db7,zone=eu-1}");
}

TEST(PushName, TargetCarriesEveryParameterEncoded) {
  EXPECT_EQ(ingest_target("/ingest", push_meta(), BodyFormat::kFolded),
            "/ingest?name=api-server.wall%7Bhost%3Ddb7%2Czone%3Deu-1%7D&from=1700000000"
            "&until=1700000030&sampleRate=10&spyName=hearth&format=folded");
  ProfileMeta m = push_meta();
  m.labels = {{"path", "/srv/a b"}, {"city", "Z\xc3\xbcrich"}};
  EXPECT_EQ(ingest_target("/p/ingest", m, BodyFormat::kPprof),
            "/p/ingest?name=api-server%7Bcity%3DZ%C3%BCrich%2Cpath%3D%2Fsrv%2Fa%20b%7D"
            "&from=1700000000&until=1700000030&sampleRate=10&spyName=hearth&format=pprof");
}

TEST(PushName, ServiceNamesAsTheServerTakesThem) {
  EXPECT_TRUE(check_service("api-server"));
  EXPECT_TRUE(check_service("team/api_v2.eu"));
  EXPECT_FALSE(check_service(""));
  EXPECT_FALSE(check_service("api server"));
  EXPECT_FALSE(check_service("api{x=y}"));
  EXPECT_FALSE(check_service("caf\xc3\xa9"));
  EXPECT_FALSE(check_service(std::string(257, 'a')));
  // A suffix the server would read as the profile type.
  EXPECT_FALSE(check_service("api.cpu"));
  EXPECT_FALSE(check_service("api.wall"));
}

TEST(PushName, ProcessNamesBecomeServiceNames) {
  EXPECT_EQ(cli::service_of_name("postgres\n"), "postgres");
  EXPECT_EQ(cli::service_of_name("hearth-sample-w"), "hearth-sample-w");
  // '.' too: "api.cpu" would read as the profile type; blanks, ':' and the like as well.
  EXPECT_EQ(cli::service_of_name("java.cpu"), "java_cpu");
  EXPECT_EQ(cli::service_of_name("kworker/0:1 x"), "kworker/0_1_x");
  EXPECT_TRUE(check_service(cli::service_of_name("a.b c:d\xc3\xa9")));
  EXPECT_EQ(cli::service_of_process(::getpid()).empty(), false);
}

TEST(PushName, LabelNamesAndValues) {
  EXPECT_TRUE(parse_label("zone=eu-1"));
  EXPECT_FALSE(parse_label("_x9=a=b"));  // "=" in the value: the name syntax has no escapes
  EXPECT_TRUE(parse_label("k8s_pod=web-7f9c"));
  EXPECT_TRUE(parse_label("city=Z\xc3\xbcrich"));
  auto l = parse_label("region=us east");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->name, "region");
  EXPECT_EQ(l->value, "us east");
  for (std::string_view bad :
       {"novalue", "=v", "9lives=x", "a-b=x", "a.b=x", "__name__=x", "__x=y", "service_name=x",
        "k=", "k= x", "k=x ", "k=a,b", "k=a}b", "k={", "k=tab\there", "k=\xff\xfe"}) {
    EXPECT_FALSE(parse_label(bad)) << bad;
  }
  EXPECT_FALSE(parse_label("k=" + std::string(2049, 'v')));
  EXPECT_TRUE(parse_label("k=" + std::string(2048, 'v')));
}

TEST(PushName, LabelSetsHaveNoDuplicatesAndABound) {
  EXPECT_TRUE(check_labels({{"a", "1"}, {"b", "2"}}));
  EXPECT_FALSE(check_labels({{"a", "1"}, {"a", "2"}}));
  std::vector<Label> many;
  for (size_t i = 0; i <= kMaxLabels; ++i) many.push_back({"l" + std::to_string(i), "v"});
  EXPECT_FALSE(check_labels(many));
  many.pop_back();
  EXPECT_TRUE(check_labels(many));
}

profile::FrameTree push_tree(std::string_view folded) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = profile::InputFormat::kFolded});
  reader.read_text(folded);
  tree.finalize();
  return tree;
}

constexpr std::string_view kPushFolded =
    "[worker-1 tid=42];main;run;work 7\n"
    "[worker-1 tid=42];main;run 2\n"
    "[pool];main;poll 3\n";

TEST(PushBody, FoldedIsTheStacksAsWritten) {
  profile::FrameTree tree = push_tree(kPushFolded);
  auto body = encode_body(tree, push_meta(), BodyFormat::kFolded);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(body->content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(body->bytes, profile::to_folded(tree));
}

TEST(PushBody, PprofIsGzippedWithTheTimeTypeAndThreadRootsAsFrames) {
  profile::FrameTree tree = push_tree(kPushFolded);
  ProfileMeta m = push_meta();
  m.type = ProfileType::kCpu;
  auto body = encode_body(tree, m, BodyFormat::kPprof);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(body->content_type, "application/octet-stream");
  ASSERT_TRUE(profile::is_gzip(body->bytes));
  auto raw = profile::gunzip(body->bytes, 1 << 20);
  ASSERT_TRUE(raw);
  std::string folded;
  auto stats =
      profile::read_pprof(*raw, [&](std::span<const std::string_view> frames, int64_t value) {
        for (size_t i = 0; i < frames.size(); ++i)
          folded += (i ? ";" : "") + std::string(frames[i]);
        folded += " " + std::to_string(value) + "\n";
      });
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->sample_type, "samples");
  // Thread roots stay frames (no pprof labels, which would be series in Pyroscope).
  EXPECT_NE(folded.find("[worker-1 tid=42];main;run;work 7"), std::string::npos) << folded;
  EXPECT_NE(raw->find("cpu"), std::string::npos);
  // No sample carries a label (profile.proto: Profile.sample = 2, Sample.label = 3).
  int samples = 0, labels = 0;
  protozero::pbf_reader profile(*raw);
  while (profile.next(2)) {
    ++samples;
    protozero::pbf_reader sample = profile.get_message();
    while (sample.next(3)) {
      ++labels;
      sample.skip();
    }
  }
  EXPECT_EQ(samples, 3);
  EXPECT_EQ(labels, 0);
}

TEST(PushBody, DifferentialAndFractionalProfilesAreRefused) {
  EXPECT_FALSE(encode_body(push_tree("a;b 1 2\n"), push_meta(), BodyFormat::kFolded));
  EXPECT_FALSE(encode_body(push_tree("a;b 0.5\n"), push_meta(), BodyFormat::kPprof));
}

TEST(PushEndpoint, UrlsAndTheirIngestPath) {
  auto e = parse_endpoint("http://pyro:4040");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->https);
  EXPECT_EQ(e->host, "pyro");
  EXPECT_EQ(e->port, 4040);
  EXPECT_EQ(e->path, "/ingest");
  EXPECT_EQ(endpoint_url(*e), "http://pyro:4040/ingest");
  e = parse_endpoint("https://profiles.example.net/");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->https);
  EXPECT_EQ(e->port, 443);
  EXPECT_EQ(e->path, "/ingest");
  e = parse_endpoint("https://gw.example:8443/pyroscope/ingest");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->path, "/pyroscope/ingest");
  e = parse_endpoint("http://gw/pyroscope");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->path, "/pyroscope/ingest");
  EXPECT_EQ(e->port, 80);
  e = parse_endpoint("http://[::1]:4040");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "::1");
  EXPECT_EQ(endpoint_url(*e), "http://[::1]:4040/ingest");
  for (std::string_view bad :
       {"pyro:4040", "ftp://pyro", "http://", "http://:4040", "http://user:pw@pyro",
        "http://pyro:0", "http://pyro:65536", "http://pyro:x", "http://pyro:", "http://pyro?x=1",
        "http://pyro/#f", "http://[::1", "http://py ro", "http://pyro/a b"}) {
    EXPECT_FALSE(parse_endpoint(bad)) << bad;
  }
}

TEST(PushEndpoint, Tenants) {
  EXPECT_TRUE(check_tenant("acme"));
  EXPECT_TRUE(check_tenant("team-1_(eu).*'!"));
  EXPECT_FALSE(check_tenant(""));
  EXPECT_FALSE(check_tenant("."));
  EXPECT_FALSE(check_tenant(".."));
  EXPECT_FALSE(check_tenant("a|b"));
  EXPECT_FALSE(check_tenant("a b"));
  EXPECT_FALSE(check_tenant(std::string(151, 'a')));
}

TEST(PushEndpoint, CredentialsFromFiles) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  push_write(dir / "token", "s3cret-token\n");
  auto bearer = read_bearer_token_file(dir / "token");
  ASSERT_TRUE(bearer) << bearer.error().message;
  EXPECT_EQ(bearer->kind, Credentials::Kind::kBearer);
  EXPECT_EQ(bearer->token, "s3cret-token");
  push_write(dir / "basic", "ops:pa:ss word\r\n");
  auto basic = read_basic_auth_file(dir / "basic");
  ASSERT_TRUE(basic) << basic.error().message;
  EXPECT_EQ(basic->user, "ops");
  EXPECT_EQ(basic->password, "pa:ss word");
  push_write(dir / "two", "a\nb\n");
  EXPECT_FALSE(read_bearer_token_file(dir / "two"));
  push_write(dir / "empty", "");
  EXPECT_FALSE(read_bearer_token_file(dir / "empty"));
  push_write(dir / "nocolon", "user\n");
  EXPECT_FALSE(read_basic_auth_file(dir / "nocolon"));
  EXPECT_FALSE(read_bearer_token_file(dir / "missing"));
}

TEST(PushRetry, WhatEachStatusMeans) {
  EXPECT_EQ(classify_status(200), Outcome::kDelivered);
  EXPECT_EQ(classify_status(204), Outcome::kDelivered);
  for (int s : {500, 502, 503, 504, 408, 429})
    EXPECT_EQ(classify_status(s), Outcome::kUnreachable) << s;
  for (int s : {400, 413, 422}) EXPECT_EQ(classify_status(s), Outcome::kRefused) << s;
  for (int s : {401, 403, 404, 405, 407}) EXPECT_EQ(classify_status(s), Outcome::kDenied) << s;
  EXPECT_EQ(classify_status(301), Outcome::kRefused);
}

TEST(PushRetry, BackoffDoublesWithinItsJitterAndIsCapped) {
  for (int retry = 0; retry < 8; ++retry) {
    const double full = std::min(30.0, 0.5 * (1 << retry));
    EXPECT_DOUBLE_EQ(backoff_delay(retry, 0.5, 30, 0.0), full / 2);
    EXPECT_DOUBLE_EQ(backoff_delay(retry, 0.5, 30, 1.0), full);
    const double mid = backoff_delay(retry, 0.5, 30, 0.5);
    EXPECT_GT(mid, full / 2);
    EXPECT_LT(mid, full);
  }
  EXPECT_DOUBLE_EQ(backoff_delay(1000, 0.5, 30, 1.0), 30);
}

SpoolEntry push_entry(std::string body) {
  return {"http://pyro:4040/ingest", "acme", "/ingest?name=a.wall%7B%7D&from=1&until=2",
          "text/plain; charset=utf-8", std::move(body)};
}

TEST(PushSpool, EntriesReadBackAndDamagedOnesAreRefused) {
  SpoolEntry e = push_entry("main;run 3\nmain 1\n\n");
  const std::string bytes = encode_entry(e);
  auto back = decode_entry(bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->url, e.url);
  EXPECT_EQ(back->tenant, e.tenant);
  EXPECT_EQ(back->target, e.target);
  EXPECT_EQ(back->content_type, e.content_type);
  EXPECT_EQ(back->body, e.body);
  e.tenant.clear();
  back = decode_entry(encode_entry(e));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->tenant, "");
  EXPECT_FALSE(decode_entry(bytes.substr(0, bytes.size() - 1)));  // truncated
  EXPECT_FALSE(decode_entry(bytes + "x"));
  EXPECT_FALSE(decode_entry(""));
  EXPECT_FALSE(decode_entry("hearth push-spool 1\nurl x\n"));
  // A length written otherwise than hearth writes it (push_spool_fuzz found it).
  std::string padded = bytes;
  padded.replace(padded.find("body-bytes ") + 11, 0, "00");
  EXPECT_FALSE(decode_entry(padded));
  for (size_t cut = 0; cut < bytes.size(); ++cut) EXPECT_FALSE(decode_entry(bytes.substr(0, cut)));
}

TEST(PushSpool, CreatedPrivateAddedListedRemoved) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir / "state/hearth/spool";
  auto spool = Spool::open(path, 1 << 20);
  ASSERT_TRUE(spool) << spool.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto a = spool->add(push_entry("a 1\n"), nullptr);
  auto b = spool->add(push_entry("b 2\n"), nullptr);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(::stat((path + "/" + *a).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto names = spool->list();
  ASSERT_TRUE(names);
  ASSERT_EQ(*names, (std::vector<std::string>{*a, *b}));  // oldest first
  auto read = spool->read(*b);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->body, "b 2\n");
  ASSERT_TRUE(spool->remove(*a));
  ASSERT_TRUE(spool->set_aside(*b));
  EXPECT_TRUE(spool->list()->empty());
  EXPECT_EQ(::stat((path + "/refused/" + *b).c_str(), &st), 0);
}

TEST(PushSpool, BoundDropsTheOldestFirstAndSaysWhich) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const uint64_t one = encode_entry(push_entry(std::string(1000, 'x'))).size();
  auto spool = Spool::open(dir / "spool", one * 3);
  ASSERT_TRUE(spool);
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i)
    names.push_back(*spool->add(push_entry(std::string(1000, 'x')), nullptr));
  ASSERT_TRUE(spool->set_aside(names[0]));  // refused/ counts too
  std::vector<std::string> dropped;
  auto d = spool->add(push_entry(std::string(1000, 'x')), &dropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(dropped, (std::vector<std::string>{"refused/" + names[0]}));
  dropped.clear();
  ASSERT_TRUE(spool->add(push_entry(std::string(1000, 'x')), &dropped));
  EXPECT_EQ(dropped, (std::vector<std::string>{names[1]}));
  EXPECT_EQ(spool->list()->size(), 3u);
  // Bigger than the whole bound: refused, nothing dropped.
  dropped.clear();
  EXPECT_FALSE(spool->add(push_entry(std::string(one * 3, 'x')), &dropped));
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(spool->list()->size(), 3u);
}

TEST(PushSpool, RefusesADirectoryOthersMayRead) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir / "open";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  ::chmod(path.c_str(), 0755);
  auto spool = Spool::open(path, 1 << 20);
  ASSERT_FALSE(spool);
  EXPECT_NE(spool.error().message.find("chmod 700"), std::string::npos) << spool.error().message;
}

TEST(PushSpool, HoldsItsLockAndClearsWhatAKilledPushLeft) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir / "spool";
  {
    auto spool = Spool::open(path, 1 << 20);
    ASSERT_TRUE(spool);
    int fd = ::open((path + "/lock").c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0);  // held by the open spool
    ::close(fd);
  }
  push_write(path + "/.tmp-0001-1-0.push", "half");
  auto spool = Spool::open(path, 1 << 20);
  ASSERT_TRUE(spool);
  EXPECT_NE(::access((path + "/.tmp-0001-1-0.push").c_str(), F_OK), 0);
  int fd = ::open((path + "/lock").c_str(), O_RDWR | O_CLOEXEC);
  EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ::close(fd);
}

}  // namespace
}  // namespace hearth::push
