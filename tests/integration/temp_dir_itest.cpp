// One temporary directory per test process (see tests/support/temp_dir_environment.h).
#include "tests/support/temp_dir_environment.h"
