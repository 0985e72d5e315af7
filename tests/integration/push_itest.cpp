// `hearth push` against a loopback server (cpp-httplib) that checks every request against
// Pyroscope's ingest contract: POST PATH/ingest, the query's name (SERVICE.TYPE{labels} for
// folded, SERVICE{labels} for pprof), from/until/sampleRate as integers, spyName, format, the
// tenant and Authorization headers, and the body decoded (folded stacks, or pprof through
// hearth's reader) and compared with the profile pushed. The server answers what each test
// scripts: 2xx, 4xx, 5xx, or nothing (a request held until hearth has given up). A server that
// is down is a port held by a socket that does not listen. Nothing here waits for a time: every
// wait is for an event (hearth's exit, the server's start), bounded so a bug fails, never hangs.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/push_test_support.h"
#include "tests/integration/target_process.h"

namespace hearth {
namespace {

using testing_support::exited_with;
using testing_support::fresh_dir;
using testing_support::run_hearth;

// A profile with thread roots, a kernel frame, an unnamed frame and non-ASCII names.
constexpr std::string_view kPushProfile =
    "[api-worker-1 tid=4242];main;serve;handle_request;parse_json 17\n"
    "[api-worker-1 tid=4242];main;serve;handle_request 3\n"
    "[api-worker-2 tid=4243];main;serve;poll;do_sys_poll_[k] 40\n"
    "[gc tid=4250];gc_loop;mark;[libjvm.so+0x1f00] 5\n"
    "[caf\xc3\xa9 tid=4251];m\xc3\xbcnchen;\xe6\x97\xa5\xe6\x9c\xac 2\n";
constexpr std::string_view kPushOther = "[db tid=7];main;query;scan 11\n[db tid=7];main;idle 4\n";

using push_test::DownPort;
using push_test::FakePyroscope;
using push_test::push_args;
using push_test::push_contract_violation;
using push_test::push_file;
using push_test::push_make_cert;
using push_test::push_spooled;
using push_test::PushAnswer;
using push_test::PushReceived;

TEST(PushCli, DeliversFoldedAsTheContractSays) {
  const auto dir = fresh_dir("push-folded");
  FakePyroscope server;
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  const std::string token = push_file(dir, "token", "tok-123\n");
  auto r =
      run_hearth(push_args(server.url(), dir,
                           {profile, "--service", "checkout", "--label", "zone=eu-1", "--label",
                            "host=web7", "--tenant", "acme", "--hz", "99", "--from", "1700000000",
                            "--until", "1700000030", "--bearer-token-file", token}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(push_contract_violation(got[0], "checkout", "folded", kPushProfile), "");
  EXPECT_EQ(got[0].params.find("name")->second, "checkout.wall{host=web7,zone=eu-1}");
  EXPECT_EQ(got[0].params.find("from")->second, "1700000000");
  EXPECT_EQ(got[0].params.find("until")->second, "1700000030");
  EXPECT_EQ(got[0].params.find("sampleRate")->second, "99");
  EXPECT_EQ(got[0].tenant, "acme");
  EXPECT_EQ(got[0].authorization, "Bearer tok-123");
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
  // The secret was read from its file: never on hearth's command line.
  EXPECT_EQ(r.err.find("tok-123"), std::string::npos);
}

TEST(PushCli, DeliversPprofThatReadsBackAsTheSameStacks) {
  const auto dir = fresh_dir("push-pprof");
  FakePyroscope server;
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  const std::string basic = push_file(dir, "basic", "ops:pa ss\n");
  auto r = run_hearth(push_args(server.url(), dir,
                                {profile, "--service", "checkout", "--send-as", "pprof", "--type",
                                 "cpu", "--basic-auth-file", basic}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(push_contract_violation(got[0], "checkout", "pprof", kPushProfile), "");
  EXPECT_TRUE(got[0].params.find("name")->second.starts_with("checkout{host="));
  EXPECT_EQ(got[0].tenant, "<none>");
  EXPECT_EQ(got[0].authorization, "Basic b3BzOnBhIHNz");  // base64 of "ops:pa ss"
}

TEST(PushCli, APprofProfileGoesAsItIs) {
  const auto dir = fresh_dir("push-pprof-as-is");
  FakePyroscope server;
  ASSERT_TRUE(server.up());
  const std::string folded = push_file(dir, "p.folded", kPushProfile);
  const std::string pprof = (dir / "p.pb.gz").string();
  auto r = run_hearth({"convert", folded, pprof, "--hz", "99"});
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  r = run_hearth(
      push_args(server.url(), dir, {pprof, "--service", "go-api", "--send-as", "pprof"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  // The file's bytes, thread labels and all (they read back as the same roots).
  EXPECT_EQ(got[0].body, testing_support::slurp(pprof));
  EXPECT_EQ(push_contract_violation(got[0], "go-api", "pprof", kPushProfile), "");
}

TEST(PushCli, ARefusalIsFinalAndNotSpooled) {
  const auto dir = fresh_dir("push-refused");
  FakePyroscope server(std::vector<PushAnswer>{{400}});
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  auto r = run_hearth(push_args(server.url(), dir, {profile, "--service", "checkout"}));
  EXPECT_TRUE(exited_with(r, 4)) << r.err;
  EXPECT_NE(r.err.find("400"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scripted answer 400"), std::string::npos) << r.err;
  EXPECT_EQ(server.received().size(), 1u);  // not retried
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
}

TEST(PushCli, RetriesServerErrorsAndRateLimitsThenDelivers) {
  const auto dir = fresh_dir("push-retry");
  FakePyroscope server(std::vector<PushAnswer>{{503}, {500}, {429}, {200}});
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  auto r = run_hearth(push_args(server.url(), dir, {profile, "--service", "checkout"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 4u);
  for (const PushReceived& g : got) {
    EXPECT_EQ(push_contract_violation(g, "checkout", "folded", kPushProfile), "");
    EXPECT_EQ(g.body, got[0].body);
  }
  EXPECT_EQ(server.taken().size(), 1u);
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
}

TEST(PushCli, TimeoutsAreRetriedThenSpooledAndDeliveredOnceLater) {
  const auto dir = fresh_dir("push-timeout");
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  // Holds the first two requests until hearth has given up on them; answers the rest.
  FakePyroscope server(std::vector<PushAnswer>{{200, true}, {200, true}});
  ASSERT_TRUE(server.up());
  std::vector<std::string> args = push_args(server.url(), dir, {profile, "--service", "checkout"});
  args[7] = "0.2";  // --timeout
  args.insert(args.end(), {"--retries", "1"});
  auto r = run_hearth(args);
  EXPECT_TRUE(exited_with(r, 3)) << r.err;
  EXPECT_NE(r.err.find("no answer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(2 attempts)"), std::string::npos) << r.err;  // the first, one retry
  EXPECT_EQ(push_spooled(dir / "spool"), 1u);
  // Both attempts reached the server (it reads them even after hearth closed its end); they
  // were never answered. Then the server answers again: the flush delivers the profile once.
  ASSERT_TRUE(server.wait_received(2));
  server.release();
  r = run_hearth(push_args(server.url(), dir, {"--flush"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(push_contract_violation(got[2], "checkout", "folded", kPushProfile), "");
  EXPECT_EQ(server.taken().size(), 1u);
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
}

TEST(PushCli, ServerDownForTheWholeRunThenUpGetsEachProfileExactlyOnce) {
  const auto dir = fresh_dir("push-down");
  const std::string first = push_file(dir, "first.folded", kPushProfile);
  const std::string second = push_file(dir, "second.folded", kPushOther);
  const std::string third = push_file(dir, "third.folded", "[t tid=1];a;b 9\n");
  DownPort down;
  ASSERT_GT(down.port(), 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(down.port());
  auto r = run_hearth(push_args(url, dir, {first, "--service", "checkout"}));
  EXPECT_TRUE(exited_with(r, 3)) << r.err;
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
  // Still down: the first stays spooled, the second joins it.
  r = run_hearth(push_args(url, dir, {second, "--service", "db"}));
  EXPECT_TRUE(exited_with(r, 3)) << r.err;
  ASSERT_EQ(push_spooled(dir / "spool"), 2u);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "spool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  // The server comes up on that port: the next push delivers the spooled ones, oldest first,
  // then its own.
  down.give_up();
  FakePyroscope server(std::vector<PushAnswer>{}, std::stoi(url.substr(url.rfind(':') + 1)));
  ASSERT_TRUE(server.up());
  r = run_hearth(push_args(url, dir, {third, "--service", "checkout"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(push_contract_violation(got[0], "checkout", "folded", kPushProfile), "");
  EXPECT_EQ(push_contract_violation(got[1], "db", "folded", kPushOther), "");
  EXPECT_EQ(push_contract_violation(got[2], "checkout", "folded", "[t tid=1];a;b 9\n"), "");
  EXPECT_NE(r.err.find("delivered 2 spooled profiles"), std::string::npos) << r.err;
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
  // Nothing is left to send twice.
  r = run_hearth(push_args(url, dir, {"--flush"}));
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_EQ(server.received().size(), 3u);
}

TEST(PushCli, AFullSpoolDropsItsOldestProfileAndSaysSo) {
  const auto dir = fresh_dir("push-full");
  const std::string first = push_file(dir, "first.folded", kPushOther);
  const std::string second = push_file(dir, "second.folded", "[t tid=1];a;b 9\n");
  DownPort down;
  const std::string url = "http://127.0.0.1:" + std::to_string(down.port());
  // Room for one entry (each is some 300 bytes), not two.
  auto r = run_hearth(push_args(url, dir, {first, "--service", "db", "--spool-max-mb", "0.0005"}));
  ASSERT_TRUE(exited_with(r, 3)) << r.err;
  r = run_hearth(push_args(url, dir, {second, "--service", "db", "--spool-max-mb", "0.0005"}));
  ASSERT_TRUE(exited_with(r, 3)) << r.err;
  EXPECT_NE(r.err.find("the spool is full: dropped its oldest profile"), std::string::npos)
      << r.err;
  EXPECT_EQ(push_spooled(dir / "spool"), 1u);
  down.give_up();
  FakePyroscope server(std::vector<PushAnswer>{}, down.port());
  ASSERT_TRUE(server.up());
  r = run_hearth(push_args(url, dir, {"--flush"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  ASSERT_EQ(server.received().size(), 1u);
  EXPECT_EQ(push_contract_violation(server.received()[0], "db", "folded", "[t tid=1];a;b 9\n"), "");
}

TEST(PushCli, ASpooledProfileTheServerRefusesIsSetAsideNotResent) {
  const auto dir = fresh_dir("push-set-aside");
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  DownPort down;
  const std::string url = "http://127.0.0.1:" + std::to_string(down.port());
  auto r = run_hearth(push_args(url, dir, {profile, "--service", "checkout"}));
  ASSERT_TRUE(exited_with(r, 3)) << r.err;
  down.give_up();
  FakePyroscope server(std::vector<PushAnswer>{{422}}, std::stoi(url.substr(url.rfind(':') + 1)));
  ASSERT_TRUE(server.up());
  r = run_hearth(push_args(url, dir, {"--flush"}));
  EXPECT_TRUE(exited_with(r, 4)) << r.err;
  EXPECT_NE(r.err.find("refused/"), std::string::npos) << r.err;
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
  EXPECT_EQ(push_spooled(dir / "spool", "refused"), 1u);
  r = run_hearth(push_args(url, dir, {"--flush"}));
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_EQ(server.received().size(), 1u);
}

TEST(PushCli, ADenialKeepsTheSpooledProfilesForWhenItIsMended) {
  const auto dir = fresh_dir("push-denied");
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  DownPort down;
  const std::string url = "http://127.0.0.1:" + std::to_string(down.port());
  auto r = run_hearth(push_args(url, dir, {profile, "--service", "checkout"}));
  ASSERT_TRUE(exited_with(r, 3)) << r.err;
  down.give_up();
  // 401: the credentials are wrong, not the profile: it stays, and the new one is not sent.
  FakePyroscope server(std::vector<PushAnswer>{{401}}, down.port());
  ASSERT_TRUE(server.up());
  r = run_hearth(push_args(url, dir, {profile, "--service", "checkout"}));
  EXPECT_TRUE(exited_with(r, 4)) << r.err;
  EXPECT_NE(r.err.find("401"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not sent"), std::string::npos) << r.err;
  EXPECT_EQ(server.received().size(), 1u);
  EXPECT_EQ(push_spooled(dir / "spool"), 1u);
  EXPECT_EQ(push_spooled(dir / "spool", "refused"), 0u);
  r = run_hearth(push_args(url, dir, {"--flush"}));
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_EQ(server.taken().size(), 1u);
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
}

TEST(PushCli, AnotherServersSpooledProfilesWaitForIt) {
  const auto dir = fresh_dir("push-other-server");
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  DownPort down;
  auto r = run_hearth(push_args("http://127.0.0.1:" + std::to_string(down.port()), dir,
                                {profile, "--service", "checkout"}));
  ASSERT_TRUE(exited_with(r, 3)) << r.err;
  FakePyroscope other;
  ASSERT_TRUE(other.up());
  r = run_hearth(push_args(other.url(), dir, {"--flush"}));
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_TRUE(other.received().empty());
  EXPECT_EQ(push_spooled(dir / "spool"), 1u);
  // Another tenant of the same server is another destination too.
  r = run_hearth(push_args("http://127.0.0.1:" + std::to_string(down.port()), dir,
                           {"--flush", "--tenant", "acme"}));
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_EQ(push_spooled(dir / "spool"), 1u);
}

TEST(PushCli, BadInputIsOneLineAndSendsNothing) {
  const auto dir = fresh_dir("push-bad");
  FakePyroscope server;
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  const std::string empty = push_file(dir, "empty.folded", "");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases{
      {{profile}, "--service"},
      {{profile, "--service", "a b"}, "service name"},
      {{profile, "--service", "api.cpu"}, "profile type"},
      {{profile, "--service", "s", "--label", "9x=1"}, "label name"},
      {{profile, "--service", "s", "--label", "k=a,b"}, "label k"},
      {{profile, "--service", "s", "--label", "__name__=x"}, "reserved"},
      {{profile, "--service", "s", "--tenant", "a|b"}, "tenant"},
      {{profile, "--service", "s", "--bearer-token-file", (dir / "none").string()}, "none"},
      {{empty, "--service", "s"}, "no stack counts"},
      {{profile, "--service", "s", "--hz", "-1"}, "--hz"},
      {{}, "--flush"},
  };
  for (const Case& c : cases) {
    auto r = run_hearth(push_args(server.url(), dir, c.args));
    EXPECT_TRUE(exited_with(r, 2)) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  auto r = run_hearth(push_args("http://user:pw@127.0.0.1:1", dir, {profile, "--service", "s"}));
  EXPECT_TRUE(exited_with(r, 2)) << r.err;
  EXPECT_NE(r.err.find("--basic-auth-file"), std::string::npos) << r.err;
  EXPECT_TRUE(server.received().empty());
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
}

TEST(PushCli, HttpsChecksTheCertificateUnlessToldNotTo) {
  const auto dir = fresh_dir("push-https");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(push_make_cert(dir, "IP:127.0.0.1,DNS:localhost")) << "openssl req failed";
  httplib::SSLServer tls((dir / "cert.pem").c_str(), (dir / "key.pem").c_str());
  ASSERT_TRUE(tls.is_valid());
  FakePyroscope server(std::vector<PushAnswer>{}, 0, &tls);
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  // Not trusted by the system: refused before anything is sent, and not spooled.
  auto r = run_hearth(push_args(server.url("https"), dir, {profile, "--service", "checkout"}));
  EXPECT_TRUE(exited_with(r, 4)) << r.err;
  EXPECT_NE(r.err.find("certificate"), std::string::npos) << r.err;
  EXPECT_TRUE(server.received().empty());
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
  // Trusted through --ca-file: delivered.
  r = run_hearth(
      push_args(server.url("https"), dir,
                {profile, "--service", "checkout", "--ca-file", (dir / "cert.pem").string()}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  ASSERT_EQ(server.received().size(), 1u);
  EXPECT_EQ(push_contract_violation(server.received()[0], "checkout", "folded", kPushProfile), "");
  // --insecure: delivered without the check.
  r = run_hearth(
      push_args(server.url("https"), dir, {profile, "--service", "checkout", "--insecure"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_EQ(server.received().size(), 2u);
}

TEST(PushCli, HttpsRefusesACertificateForAnotherHost) {
  const auto dir = fresh_dir("push-https-host");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(push_make_cert(dir, "DNS:elsewhere.example")) << "openssl req failed";
  httplib::SSLServer tls((dir / "cert.pem").c_str(), (dir / "key.pem").c_str());
  ASSERT_TRUE(tls.is_valid());
  FakePyroscope server(std::vector<PushAnswer>{}, 0, &tls);
  ASSERT_TRUE(server.up());
  const std::string profile = push_file(dir, "p.folded", kPushProfile);
  auto r = run_hearth(
      push_args(server.url("https"), dir,
                {profile, "--service", "checkout", "--ca-file", (dir / "cert.pem").string()}));
  EXPECT_TRUE(exited_with(r, 4)) << r.err;
  EXPECT_TRUE(server.received().empty());
}

// The goal: a server down for the whole recording; the profile is spooled, survives,
// and is delivered once when the server is back.
TEST(PushCli, RecordPushSpoolsWhileTheServerIsDownAndDeliversItOnceLater) {
  auto target = testing_support::Target::start("stack_target-fp",
                                               {"--threads", "2", "--depth", "4", "--spin", "1"});
  ASSERT_TRUE(target);
  const auto dir = fresh_dir("push-record");
  DownPort down;
  ASSERT_GT(down.port(), 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(down.port());
  // A bad push option is found before the recording: one line, nothing recorded.
  auto bad = run_hearth({"record", "-p", std::to_string(target->pid()), "-d", "0.5", "-o",
                         (dir / "bad").string(), "--push", url, "--label", "9lives=x"});
  EXPECT_TRUE(exited_with(bad, 2)) << bad.err;
  EXPECT_NE(bad.err.find("--push: label name 9lives"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  auto r =
      run_hearth({"record", "-p", std::to_string(target->pid()), "-d", "0.5", "-F", "20",
                  "--no-sched", "--no-mmv", "-o", (dir / "rec").string(), "--push", url, "--spool",
                  (dir / "spool").string(), "--backoff", "0.01", "--label", "env=test"});
  EXPECT_TRUE(exited_with(r, 3)) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "rec" / "index.html"));  // the report all the same
  ASSERT_EQ(push_spooled(dir / "spool"), 1u);

  down.give_up();
  FakePyroscope server(std::vector<PushAnswer>{}, down.port());
  ASSERT_TRUE(server.up());
  r = run_hearth(push_args(url, dir, {"--flush"}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  const std::string recorded = testing_support::slurp((dir / "rec" / "stacks.folded").string());
  ASSERT_FALSE(recorded.empty());
  // The service is the target's name; the rate record's -F.
  EXPECT_EQ(push_contract_violation(got[0], "stack_target-fp", "folded", recorded), "");
  EXPECT_EQ(got[0].params.find("sampleRate")->second, "20");
  EXPECT_NE(got[0].params.find("name")->second.find("env=test"), std::string::npos);
  EXPECT_EQ(push_spooled(dir / "spool"), 0u);
  r = run_hearth(push_args(url, dir, {"--flush"}));
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_EQ(server.received().size(), 1u);

  // The report directory itself pushes the same: its stacks, target, rate and window.
  r = run_hearth(push_args(url, dir, {(dir / "rec").string()}));
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  got = server.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(push_contract_violation(got[1], "stack_target-fp", "folded", recorded), "");
  EXPECT_EQ(got[1].params.find("sampleRate")->second, "20");
  const long long from = std::stoll(got[1].params.find("from")->second);
  const long long until = std::stoll(got[1].params.find("until")->second);
  EXPECT_GE(until, from);
  EXPECT_LE(until - from, 1);  // the window: -d 0.5
}

// hearth watch --push: the report the watcher writes goes to the server as `hearth push DIR`
// sends it (the target's name as the service, the report's rate), from a process of the
// watcher's own, whose end the watcher says. Then a server that is down: the report is spooled,
// and said so.
TEST(PushCli, WatchPushesEachReportItWrites) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (the bpf capture)";
  auto target = testing_support::Target::start("burst_target-nofp", {"--threads", "4"});
  ASSERT_TRUE(target);
  const auto dir = fresh_dir("push-watch");
  testing_support::PcpTmpDir pcp_tmp(dir / "tmp");  // nothing published to the host's PCP
  FakePyroscope server;
  ASSERT_TRUE(server.up());
  const std::vector<std::string> watch = {
      "watch", "-p", std::to_string(target->pid()), "--rule",
      "calm = sched:sleeping(thread=worker-*) > 50% for 2s", "--after", "1", "--max-reports",
      "1", "-F", "20", "--no-publish", "--spool", (dir / "spool").string(), "--backoff", "0.01",
      "--label", "env=test"};
  auto args = watch;
  args.insert(args.end(), {"-o", (dir / "up").string(), "--push", server.url()});
  const std::string err = (dir / "up.err").string();
  pid_t h = testing_support::start_hearth(args, err);
  EXPECT_EQ(testing_support::wait_exit(h), 0) << testing_support::slurp(err);
  const std::string said = testing_support::slurp(err);
  EXPECT_NE(said.find(": delivered\n"), std::string::npos) << said;
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u) << said;
  std::vector<std::filesystem::path> reports;
  for (const auto& e : std::filesystem::directory_iterator(dir / "up")) {
    if (std::filesystem::exists(e.path() / "report.json")) reports.push_back(e.path());
  }
  ASSERT_EQ(reports.size(), 1u) << said;
  const std::string recorded = testing_support::slurp((reports[0] / "stacks.folded").string());
  ASSERT_FALSE(recorded.empty());
  EXPECT_EQ(push_contract_violation(got[0], "burst_target-no", "folded", recorded), "");
  EXPECT_EQ(got[0].params.find("sampleRate")->second, "20");
  EXPECT_NE(got[0].params.find("name")->second.find("env=test"), std::string::npos);

  DownPort down;
  ASSERT_GT(down.port(), 0);
  args = watch;
  args.insert(args.end(), {"-o", (dir / "down").string(), "--push",
                           "http://127.0.0.1:" + std::to_string(down.port()), "--retries", "0"});
  const std::string down_err = (dir / "down.err").string();
  h = testing_support::start_hearth(args, down_err);
  EXPECT_EQ(testing_support::wait_exit(h), 0) << testing_support::slurp(down_err);
  const std::string down_said = testing_support::slurp(down_err);
  EXPECT_NE(down_said.find(": spooled: the server could not be reached (exit 3)"),
            std::string::npos)
      << down_said;
  EXPECT_EQ(push_spooled(dir / "spool"), 1u);
}

}  // namespace
}  // namespace hearth
