#include "core/query/slicetable.h"

#include <sqlite3.h>

namespace ks::query {

std::string_view sliceKindName(SliceClass kind)
{
    switch (kind) {
    case SliceClass::CpuOp: return "cpu_op";
    case SliceClass::UserAnnotation: return "user_annotation";
    case SliceClass::PythonFunction: return "python_function";
    case SliceClass::CudaRuntime: return "cuda_runtime";
    case SliceClass::CudaDriver: return "cuda_driver";
    case SliceClass::Kernel: return "kernel";
    case SliceClass::Memcpy: return "memcpy";
    case SliceClass::Memset: return "memset";
    case SliceClass::GpuUserAnnotation: return "gpu_user_annotation";
    case SliceClass::Overhead: return "overhead";
    case SliceClass::Other: break;
    }
    return "other";
}

namespace {

// The columns every slice-based table starts with, read straight from the model.
enum SliceColumn { Id, Ts, Dur, Name, Category, TrackColumn, Depth, Thread, ProcessColumn, Kind, kSliceColumns };
constexpr const char* kSliceColumnsSql =
    "id INTEGER, ts INTEGER, dur INTEGER, name TEXT, category TEXT, track INTEGER, depth INTEGER, thread, "
    "process, kind TEXT";

void sliceColumn(sqlite3_context* context, const Trace& trace, SliceId s, int column)
{
    const auto& slices = trace.slices();
    switch (column) {
    case Id: sqlite3_result_int64(context, s); break;
    case Ts: sqlite3_result_int64(context, slices.start[s]); break;
    case Dur: sqlite3_result_int64(context, slices.duration[s]); break;
    case Name: resultPooledText(context, trace.str(slices.name[s])); break;
    case Category: resultPooledText(context, trace.str(slices.category[s])); break;
    case TrackColumn: sqlite3_result_int64(context, trace.trackOf(s)); break;
    case Depth: sqlite3_result_int64(context, trace.rowOf(s).depth); break;
    case Thread: resultJsonId(context, trace, trace.tracks()[trace.trackOf(s)].tid); break;
    case ProcessColumn:
        resultJsonId(context, trace, trace.processes()[trace.tracks()[trace.trackOf(s)].process].pid);
        break;
    case Kind: resultPooledText(context, sliceKindName(trace.classOf(s))); break;
    default: sqlite3_result_null(context); break;
    }
}

const IndexedColumns kSliceIndexes{Id, Ts, TrackColumn};

class SliceTable final : public TraceTable {
public:
    using TraceTable::TraceTable;
    enum Extra { SelfDur = kSliceColumns, Correlation, ExternalId, Args };

    const char* schema() const override
    {
        static const std::string sql = std::string("CREATE TABLE slice(") + kSliceColumnsSql
            + ", self_dur INTEGER, correlation INTEGER, external_id INTEGER, args TEXT)";
        return sql.c_str();
    }
    IndexedColumns indexedColumns() const override { return kSliceIndexes; }
    std::vector<Segment> segments(const ScanBounds& bounds) const override { return sliceSegments(m_trace, bounds); }
    std::uint64_t argsColumns() const override { return std::uint64_t(1) << Args; }
    double estimatedRows() const override { return double(m_trace.slices().size()); }

    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch& args) const override
    {
        const auto s = static_cast<SliceId>(row);
        switch (column) {
        case SelfDur: sqlite3_result_int64(context, m_trace.selfTime(s)); break;
        case Correlation: resultOptionalId(context, m_trace.slices().correlation[s]); break;
        case ExternalId: resultOptionalId(context, m_trace.slices().externalId[s]); break;
        case Args: {
            const auto& value = args.argsOf(s);
            if (value.is_null())
                sqlite3_result_null(context);
            else
                resultText(context, value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            break;
        }
        default: sliceColumn(context, m_trace, s, column); break;
        }
    }
};

// Rows of the slices of one class: the slice table's segments, skipping other classes.
class SliceClassTable : public TraceTable {
public:
    SliceClassTable(const Trace& trace, SliceClass kind)
        : TraceTable(trace)
        , m_kind(kind)
    {
    }
    IndexedColumns indexedColumns() const override { return kSliceIndexes; }
    std::vector<Segment> segments(const ScanBounds& bounds) const override { return sliceSegments(m_trace, bounds); }
    bool contains(std::uint64_t row) const override { return m_trace.classOf(static_cast<SliceId>(row)) == m_kind; }
    double estimatedRows() const override { return double(m_trace.slices().size()) / 4; }

private:
    SliceClass m_kind;
};

class KernelTable final : public SliceClassTable {
public:
    explicit KernelTable(const Trace& trace)
        : SliceClassTable(trace, SliceClass::Kernel)
    {
    }
    enum Extra {
        Device = kSliceColumns,
        Stream,
        Grid,
        Block,
        GridX,
        GridY,
        GridZ,
        BlockX,
        BlockY,
        BlockZ,
        Registers,
        SharedMemory,
        BlocksPerSm,
        WarpsPerSm,
        Occupancy,
        Correlation,
        ExternalId,
    };

    const char* schema() const override
    {
        static const std::string sql = std::string("CREATE TABLE kernel(") + kSliceColumnsSql
            + ", device INTEGER, stream INTEGER, grid TEXT, block TEXT, grid_x INTEGER, "
              "grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, "
              "block_z INTEGER, registers INTEGER, shared_memory INTEGER, blocks_per_sm "
              "REAL, warps_per_sm REAL, occupancy REAL, correlation INTEGER, "
              "external_id INTEGER)";
        return sql.c_str();
    }

    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch&) const override
    {
        const auto s = static_cast<SliceId>(row);
        if (column < kSliceColumns) {
            sliceColumn(context, m_trace, s, column);
            return;
        }
        if (column == Correlation || column == ExternalId) {
            const auto& slices = m_trace.slices();
            resultOptionalId(context, column == Correlation ? slices.correlation[s] : slices.externalId[s]);
            return;
        }
        const GpuOpInfo* info = m_trace.gpuOpInfo(s);
        if (!info) {
            sqlite3_result_null(context);
            return;
        }
        const auto optionalInt = [context](std::int64_t value) {
            if (value < 0)
                sqlite3_result_null(context);
            else
                sqlite3_result_int64(context, value);
        };
        const auto optionalReal = [context](float value) {
            if (value < 0)
                sqlite3_result_null(context);
            else
                sqlite3_result_double(context, value);
        };
        const auto triple = [context](const std::int32_t(&v)[3]) {
            resultText(context,
                       "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]");
        };
        switch (column) {
        case Device: optionalInt(info->device); break;
        case Stream: optionalInt(info->stream); break;
        case Grid: triple(info->grid); break;
        case Block: triple(info->block); break;
        case GridX:
        case GridY:
        case GridZ: sqlite3_result_int64(context, info->grid[column - GridX]); break;
        case BlockX:
        case BlockY:
        case BlockZ: sqlite3_result_int64(context, info->block[column - BlockX]); break;
        case Registers: optionalInt(info->registersPerThread); break;
        case SharedMemory: optionalInt(info->sharedMemory); break;
        case BlocksPerSm: optionalReal(info->blocksPerSm); break;
        case WarpsPerSm: optionalReal(info->warpsPerSm); break;
        case Occupancy: optionalReal(info->estAchievedOccupancyPct); break;
        default: sqlite3_result_null(context); break;
        }
    }
};

// Args of an op, by the names kineto writes (older traces spell some in lower case).
const nlohmann::json* findArg(const nlohmann::json& args, std::initializer_list<const char*> keys)
{
    if (!args.is_object())
        return nullptr;
    for (const char* key : keys) {
        const auto it = args.find(key);
        if (it != args.end())
            return &*it;
    }
    return nullptr;
}

class OpTable final : public SliceClassTable {
public:
    explicit OpTable(const Trace& trace)
        : SliceClassTable(trace, SliceClass::CpuOp)
    {
    }
    enum Extra { ExternalId = kSliceColumns, SequenceNumber, InputDims, InputTypes, FwdThread, SelfDur, Args };

    const char* schema() const override
    {
        static const std::string sql = std::string("CREATE TABLE op(") + kSliceColumnsSql
            + ", external_id INTEGER, sequence_number INTEGER, input_dims TEXT, "
              "input_types TEXT, fwd_thread INTEGER, self_dur INTEGER, args TEXT)";
        return sql.c_str();
    }
    std::uint64_t argsColumns() const override
    {
        std::uint64_t mask = 0;
        for (const int c : {SequenceNumber, InputDims, InputTypes, FwdThread, Args})
            mask |= std::uint64_t(1) << c;
        return mask;
    }

    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch& batch) const override
    {
        const auto s = static_cast<SliceId>(row);
        if (column < kSliceColumns) {
            sliceColumn(context, m_trace, s, column);
            return;
        }
        const nlohmann::json* value = nullptr;
        switch (column) {
        case ExternalId: resultOptionalId(context, m_trace.slices().externalId[s]); return;
        case SelfDur: sqlite3_result_int64(context, m_trace.selfTime(s)); return;
        case SequenceNumber: value = findArg(batch.argsOf(s), {"Sequence number", "Sequence Number"}); break;
        case InputDims: value = findArg(batch.argsOf(s), {"Input Dims", "Input dims"}); break;
        case InputTypes: value = findArg(batch.argsOf(s), {"Input type", "Input types", "Input Type"}); break;
        case FwdThread: value = findArg(batch.argsOf(s), {"Fwd thread id"}); break;
        case Args: value = &batch.argsOf(s); break;
        default: break;
        }
        if (!value || value->is_null())
            sqlite3_result_null(context);
        else if (value->is_array() || value->is_object())
            resultText(context, value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        else
            resultJson(context, *value);
    }
};

} // namespace

std::unique_ptr<TraceTable> makeSliceTable(const Trace& trace) { return std::make_unique<SliceTable>(trace); }
std::unique_ptr<TraceTable> makeKernelTable(const Trace& trace) { return std::make_unique<KernelTable>(trace); }
std::unique_ptr<TraceTable> makeOpTable(const Trace& trace) { return std::make_unique<OpTable>(trace); }

} // namespace ks::query
