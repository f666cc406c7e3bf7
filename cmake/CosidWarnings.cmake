# Strict warnings for cosid's own targets only: PRIVATE, so they never leak into a consumer's build.
function(cosid_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  if(COSID_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
