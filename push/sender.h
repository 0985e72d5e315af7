// Sends one ingest request to the server, over HTTP or HTTPS (cpp-httplib with OpenSSL: the
// server's certificate and host name are checked unless asked not to), with timeouts, and
// retries what may succeed later: 5xx, 408 and 429 answers, timeouts, refused or broken
// connections, each after an exponential backoff with jitter (a Retry-After of at most a minute
// is honoured). Any other answer is final.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "push/endpoint.h"

namespace hearth::push {

struct SendOptions {
  std::string tenant;         // X-Scope-OrgID; "" sends none
  Credentials credentials;    // Authorization
  std::string ca_file;        // PEM file of the CAs to trust; "": the system's
  bool insecure = false;      // https without checking the certificate (only when asked)
  double timeout_s = 10;      // to connect, and for each read and write
  int retries = 4;            // after the first attempt
  double backoff_s = 0.5;     // the first retry's delay (before jitter); doubles each time
  double max_backoff_s = 30;  // the most any delay grows to
  // Sleeps between attempts (tests make it record instead).
  std::function<void(double seconds)> sleep;
};

struct Request {
  std::string target;  // path and query
  std::string content_type;
  std::string body;
};

enum class Outcome : uint8_t {
  kDelivered,    // a 2xx answer
  kRefused,      // a final answer about the profile (4xx but 408, 429; 3xx): not sent again
  kDenied,       // 401, 403, 404, 405, 407: the credentials, tenant or URL are wrong, not the
                 // profile: a spooled one stays for when they are mended
  kUnreachable,  // no answer, or only 5xx/408/429 answers, after every retry
};

struct SendResult {
  Outcome outcome = Outcome::kUnreachable;
  int status = 0;      // the last HTTP status; 0 when no answer came
  std::string detail;  // one line: "503 Service Unavailable: …", "connection refused", …
  int attempts = 0;
};

// What an HTTP STATUS says, as an Outcome (kUnreachable: worth another attempt).
Outcome classify_status(int status);

// The delay before retry number RETRY (0-based): BACKOFF × 2^RETRY capped at MAX, of which the
// upper half is scaled by UNIT (a random number in [0, 1)): "equal jitter", so that many hosts
// whose pushes failed together do not retry together.
double backoff_delay(int retry, double backoff_s, double max_backoff_s, double unit);

class Sender {
 public:
  Sender(Endpoint endpoint, SendOptions options);
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // Sends REQUEST, retrying as above.
  SendResult send(const Request& request);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::push
