// Every op builder: include this to write graphs.
#pragma once

#include "graph/graph.hpp"
#include "ops/attention.hpp"
#include "ops/copy.hpp"
#include "ops/elementwise.hpp"
#include "ops/get_rows.hpp"
#include "ops/matmul.hpp"
#include "ops/norm.hpp"
#include "ops/op_def.hpp"
#include "ops/rope.hpp"
#include "ops/softmax.hpp"
#include "ops/views.hpp"
