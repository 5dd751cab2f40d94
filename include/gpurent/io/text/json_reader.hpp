// SPDX-License-Identifier: MIT
#pragma once
// The io layer's one JSON toolkit, one header per concept: JSON text to a document (syntax
// errors, numbers no double holds, a key given twice in one object and too deep a nesting
// become errors naming file:line; io/text/json_parse.hpp), where the value at a JSON path is in
// the text, for the line an error names (io/text/json_locate.hpp), and `json_object`, the reader
// every JSON format of gpurent uses, with the messages they all share (io/text/json_object.hpp).

#include <gpurent/io/text/json_locate.hpp>
#include <gpurent/io/text/json_object.hpp>
#include <gpurent/io/text/json_parse.hpp>
