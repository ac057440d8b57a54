# Writes the chat page (chat.html) into a C++ header as a raw string literal,
# so that the binary serves it without any file beside it.
# cmake -DIN=chat.html -DOUT=chat_page.hpp -P embed_page.cmake
file(READ "${IN}" page)
string(FIND "${page}" ")tessera_page\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's delimiter )tessera_page\"")
endif()
set(text "// Generated from tools/serve/chat.html by tools/serve/embed_page.cmake: edit the HTML.\n#pragma once\n\nnamespace tessera::serve {\n\ninline constexpr char kChatPage[] = R\"tessera_page(${page})tessera_page\";\n\n}  // namespace tessera::serve\n")
# Rewritten only when it changes, so that an unchanged page recompiles nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
