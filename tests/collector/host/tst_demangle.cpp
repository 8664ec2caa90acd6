// Kernel name demangling: only `_Z…` names, failures and plain names kept as they are.
#include "collector/host/demangle.h"

#include <QTest>

class TestDemangle : public QObject {
    Q_OBJECT
private slots:
    void names_data()
    {
        QTest::addColumn<std::string>("mangled");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("plain C++") << std::string("_Z4busyPfi") << std::string("busy(float*, int)");
        QTest::newRow("template") << std::string(
            "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_"
            "T1_")
                                  << std::string("void at::native::vectorized_elementwise_kernel<4, "
                                                 "at::native::FillFunctor<float>, "
                                                 "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
                                                 "at::detail::Array<char*, 1>)");
        QTest::newRow("cuBLAS plain")
            << std::string("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma")
            << std::string("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma");
        QTest::newRow("nvjet") << std::string("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTN")
                               << std::string("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTN");
        QTest::newRow("triton") << std::string("triton_poi_fused_add_0") << std::string("triton_poi_fused_add_0");
        QTest::newRow("broken _Z") << std::string("_Zfoo") << std::string("_Zfoo");
        QTest::newRow("empty") << std::string() << std::string();
    }

    void names()
    {
        QFETCH(std::string, mangled);
        QFETCH(std::string, expected);
        QCOMPARE(ks::collector::demangleKernelName(mangled), expected);
    }

    void overlongNamesAreKept()
    {
        const std::string longName = "_Z" + std::string(9000, 'x');
        QCOMPARE(ks::collector::demangleKernelName(longName), longName);
    }
};

QTEST_GUILESS_MAIN(TestDemangle)
#include "tst_demangle.moc"
