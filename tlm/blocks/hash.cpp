#include "tlm/blocks/hash.h"
