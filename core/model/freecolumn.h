// Frees a vector's memory at once: `column = {}` picks operator=(initializer_list), which keeps
// the capacity, so the memory would only come back when the owner is destroyed.
#pragma once

#include <vector>

namespace ks {

template <typename T>
void freeColumn(std::vector<T>& column)
{
    std::vector<T>().swap(column);
}

} // namespace ks
