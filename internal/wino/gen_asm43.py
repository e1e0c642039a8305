#!/usr/bin/env python3
"""Writes f43_amd64.s: the eight- and four-tile AVX2 kernels of f43.go.

Run by `go generate ./internal/wino` (python3 on the path). As in
gen_asm.py, each kernel is straight-line code, one YMM (eight tiles) or XMM
(four tiles) lane a tile, and every value is the same sequence of single
additions, subtractions and exact multiplications (by 2, 4, 8) as in its Go
twin, so the two give the same bits (TestF4AsmMatchesGo). A tile's four
columns are one 128-bit load (eight tiles: tiles j and j + 4 in the two
halves of a YMM register), turned into columns by 4×4 transposes.
"""

out = []
a = out.append


def emit(*lines):
    for s in lines:
        a('\t' + s)


def load_tiles(w, R, reg, base, k):
    """reg = the four values at base + 16k bytes (tile k), and tile k + 4's
    in the upper half for eight tiles."""
    emit(f'VMOVUPS {16 * k}({base}), X{reg}')
    if w == 8:
        emit(f'VINSERTF128 $1, {16 * (k + 4)}({base}), Y{reg}, Y{reg}')


def cols4(R, a_, b_, c_, d_, outs, tmp):
    """4×4 transposes in each 128-bit half: outs[j] = [a_j, b_j, c_j, d_j]."""
    u0, u1, u2, u3 = (R(t) for t in tmp)
    a_, b_, c_, d_ = R(a_), R(b_), R(c_), R(d_)
    o = [R(t) for t in outs]
    emit(f'VUNPCKLPS {b_}, {a_}, {u0}', f'VUNPCKHPS {b_}, {a_}, {u1}',
         f'VUNPCKLPS {d_}, {c_}, {u2}', f'VUNPCKHPS {d_}, {c_}, {u3}',
         f'VSHUFPS $0x44, {u2}, {u0}, {o[0]}', f'VSHUFPS $0xEE, {u2}, {u0}, {o[1]}',
         f'VSHUFPS $0x44, {u3}, {u1}, {o[2]}', f'VSHUFPS $0xEE, {u3}, {u1}, {o[3]}')


def store_tiles(w, R, rs, dst):
    """Store the transposed rows rs (tile j, and j + 4 in the upper half) as
    the 4w consecutive values at dst."""
    r0, r1, r2, r3 = (R(t) for t in rs)
    if w == 4:
        for k, r in enumerate((r0, r1, r2, r3)):
            emit(f'VMOVUPS {r}, {16 * k}({dst})')
        return
    # rs[0] is reused as scratch last.
    emit(f'VPERM2F128 $0x20, {r1}, {r0}, Y0', f'VMOVUPS Y0, ({dst})',
         f'VPERM2F128 $0x20, {r3}, {r2}, Y0', f'VMOVUPS Y0, 32({dst})',
         f'VPERM2F128 $0x31, {r1}, {r0}, Y0', f'VMOVUPS Y0, 64({dst})',
         f'VPERM2F128 $0x31, {r3}, {r2}, Y0', f'VMOVUPS Y0, 96({dst})')


def const(R, reg, bits):
    emit(f'MOVL ${bits:#x}, AX', f'VMOVQ AX, X{reg}', f'VBROADCASTSS X{reg}, {R(reg)}')


def bt6(R, d, t, store):
    """Bᵀ on the registers d[0..5] (bt6 in f43.go), K4 in 15; t: seven
    temporaries; store(i, reg) stores output i."""
    d = [R(x) for x in d]
    T = [R(x) for x in t]
    K4 = R('15')
    emit(f'VSUBPS {d[2]}, {d[0]}, {T[0]}', f'VMULPS {K4}, {T[0]}, {T[0]}',
         f'VSUBPS {d[2]}, {d[4]}, {T[1]}', f'VADDPS {T[1]}, {T[0]}, {T[0]}')
    store(0, T[0])
    emit(f'VMULPS {K4}, {d[2]}, {T[2]}', f'VSUBPS {T[2]}, {d[4]}, {T[2]}',
         f'VMULPS {K4}, {d[1]}, {T[3]}', f'VSUBPS {T[3]}, {d[3]}, {T[3]}',
         f'VADDPS {T[3]}, {T[2]}, {T[0]}')
    store(1, T[0])
    emit(f'VSUBPS {T[3]}, {T[2]}, {T[0]}')
    store(2, T[0])
    emit(f'VSUBPS {d[1]}, {d[3]}, {T[4]}', f'VADDPS {T[4]}, {T[4]}, {T[4]}',
         f'VADDPS {T[4]}, {T[1]}, {T[0]}')
    store(3, T[0])
    emit(f'VSUBPS {T[4]}, {T[1]}, {T[0]}')
    store(4, T[0])
    emit(f'VSUBPS {d[3]}, {d[1]}, {T[5]}', f'VMULPS {K4}, {T[5]}, {T[5]}',
         f'VSUBPS {d[3]}, {d[5]}, {T[6]}', f'VADDPS {T[6]}, {T[5]}, {T[5]}')
    store(5, T[5])


def at6(R, m, t, outs):
    """Aᵀ on the registers m[0..5] (at6 in f43.go), K4 in 15 and K8 in 14;
    t: four temporaries (A, B, C, D); outs: four registers (outs[3] may be
    m[1] or m[2], dead by then)."""
    m = [R(x) for x in m]
    A, B, C, D = (R(x) for x in t)
    o = [R(x) for x in outs]
    emit(f'VADDPS {m[2]}, {m[1]}, {A}', f'VSUBPS {m[2]}, {m[1]}, {B}',
         f'VADDPS {m[4]}, {m[3]}, {C}', f'VSUBPS {m[4]}, {m[3]}, {D}',
         f'VADDPS {A}, {m[0]}, {o[0]}', f'VADDPS {C}, {o[0]}, {o[0]}',
         f'VADDPS {D}, {D}, {o[1]}', f'VADDPS {o[1]}, {B}, {o[1]}',
         f'VMULPS {R("15")}, {C}, {o[2]}', f'VADDPS {o[2]}, {A}, {o[2]}',
         f'VMULPS {R("14")}, {D}, {o[3]}', f'VADDPS {o[3]}, {B}, {o[3]}', f'VADDPS {m[5]}, {o[3]}, {o[3]}')


def a6(R, y, t, store):
    """A on the registers y[0..3] (a6 in f43.go), K4 in 15; t: five
    temporaries; store(i, reg) stores output i."""
    y = [R(x) for x in y]
    P, Q, P2, Q2, O = (R(x) for x in t)
    K4 = R('15')
    store(0, y[0])
    emit(f'VADDPS {y[2]}, {y[0]}, {P}', f'VADDPS {y[3]}, {y[1]}, {Q}', f'VADDPS {Q}, {P}, {O}')
    store(1, O)
    emit(f'VSUBPS {Q}, {P}, {O}')
    store(2, O)
    emit(f'VMULPS {K4}, {y[2]}, {P2}', f'VADDPS {P2}, {y[0]}, {P2}',
         f'VMULPS {K4}, {y[3]}, {Q2}', f'VADDPS {Q2}, {y[1]}, {Q2}', f'VADDPS {Q2}, {Q2}, {Q2}',
         f'VADDPS {Q2}, {P2}, {O}')
    store(3, O)
    emit(f'VSUBPS {Q2}, {P2}, {O}')
    store(4, O)
    store(5, y[3])


def b6(R, z, t, which):
    """The rows q₀ … q₃ of B on the registers z[0..5] (b6 in f43.go), K4 in
    15, the sign mask in 14; t: temporaries (D21, D43, T, U); which: the
    outputs wanted, {i: register}."""
    z = [R(x) for x in z]
    D21, D43, T, U = (R(x) for x in t)
    K4, S = R('15'), R('14')
    emit(f'VSUBPS {z[1]}, {z[2]}, {D21}', f'VSUBPS {z[3]}, {z[4]}, {D43}')
    if 0 in which:
        emit(f'VMULPS {K4}, {z[0]}, {R(which[0])}')
    if 1 in which:
        o = R(which[1])
        emit(f'VADDPS {z[5]}, {D21}, {T}', f'VMULPS {K4}, {T}, {T}', f'VADDPS {D43}, {D43}, {U}', f'VADDPS {U}, {T}, {o}')
    if 2 in which:
        o = R(which[2])
        emit(f'VADDPS {z[2]}, {z[1]}, {T}', f'VADDPS {T}, {z[0]}, {T}', f'VMULPS {K4}, {T}, {T}',
             f'VADDPS {z[4]}, {z[3]}, {U}', f'VADDPS {U}, {z[0]}, {U}', f'VADDPS {U}, {T}, {T}', f'VXORPS {S}, {T}, {o}')
    if 3 in which:
        o = R(which[3])
        emit(f'VADDPS {D43}, {D43}, {T}', f'VADDPS {T}, {D21}, {T}', f'VMULPS {K4}, {z[5]}, {U}',
             f'VADDPS {z[5]}, {U}, {U}', f'VADDPS {U}, {T}, {T}', f'VXORPS {S}, {T}, {o}')


def b6q4(R, z, t, o):
    """(z₀ + (z₁ + z₂)) + (z₃ + z₄) into o; t: one temporary."""
    z = [R(x) for x in z]
    T, o = R(t), R(o)
    emit(f'VADDPS {z[2]}, {z[1]}, {o}', f'VADDPS {o}, {z[0]}, {o}', f'VADDPS {z[4]}, {z[3]}, {T}', f'VADDPS {T}, {o}, {o}')


a('// Code generated by gen_asm43.py; DO NOT EDIT.\n')
a('#include "textflag.h"')
for w in (8, 4):
    R = (lambda n: 'Y' + str(n)) if w == 8 else (lambda n: 'X' + str(n))
    vb = 4 * w

    # ---- f4input: V = Bᵀ d B of w tiles.
    a('')
    a(f'// func f4input{w}(d *float32, pw int, v *float32, stride int)')
    a(f'TEXT ·f4input{w}(SB), ${36 * vb}-32')
    emit('MOVQ d+0(FP), SI', 'MOVQ pw+8(FP), BX', 'SHLQ $2, BX', 'MOVQ v+16(FP), DI',
         'MOVQ stride+24(FP), DX', 'SHLQ $2, DX')
    const(R, 15, 0x40800000)
    for r in range(6):
        a(f'\t// patch row {r}: columns 0 … 5 of the tiles, then e = d B')
        for reg, k in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4)):
            load_tiles(w, R, reg, 'SI', k)
        # columns 4 and 5 (columns 0 and 1 of tiles k + 1) from b, c, d, e
        emit(f'VUNPCKLPS {R(2)}, {R(1)}, {R(5)}', f'VUNPCKLPS {R(4)}, {R(3)}, {R(6)}',
             f'VSHUFPS $0x44, {R(6)}, {R(5)}, {R(7)}', f'VSHUFPS $0xEE, {R(6)}, {R(5)}, {R(8)}')
        cols4(R, 0, 1, 2, 3, (0, 1, 2, 3), (4, 5, 6, 9))
        bt6(R, (0, 1, 2, 3, 7, 8), (4, 5, 6, 9, 10, 11, 12),
            lambda i, reg, r=r: emit(f'VMOVUPS {reg}, {(6 * r + i) * vb}(SP)'))
        if r < 5:
            emit('ADDQ BX, SI')
    a('\t// V = Bᵀ e, column b of e at a time; row a of V at R8 … R13')
    emit('LEAQ (DX)(DX*2), AX', 'SHLQ $1, AX', 'MOVQ DI, R8')
    for i, reg in enumerate(('R9', 'R10', 'R11', 'R12', 'R13')):
        emit(f'LEAQ (R{8 + i})(AX*1), {reg}')
    for b in range(6):
        for i in range(6):
            emit(f'VMOVUPS {(6 * i + b) * vb}(SP), {R(i)}')
        bt6(R, (0, 1, 2, 3, 4, 5), (6, 7, 8, 9, 10, 11, 12),
            lambda i, reg: emit(f'VMOVUPS {reg}, (R{8 + i})'))
        if b < 5:
            for i in range(6):
                emit(f'ADDQ DX, R{8 + i}')
    emit('VZEROUPPER', 'RET')

    # ---- f4outGrad: D̂ = A ∂Y Aᵀ of w tiles.
    a('')
    a(f'// func f4outGrad{w}(dy *float32, w int, dh *float32, stride int)')
    a(f'TEXT ·f4outGrad{w}(SB), ${24 * vb}-32')
    emit('MOVQ dy+0(FP), SI', 'MOVQ w+8(FP), BX', 'SHLQ $2, BX', 'MOVQ dh+16(FP), DI',
         'MOVQ stride+24(FP), DX', 'SHLQ $2, DX')
    const(R, 15, 0x40800000)
    for r in range(4):
        a(f'\t// row {r} of ∂Y: e = ∂Y Aᵀ')
        for reg, k in ((0, 0), (1, 1), (2, 2), (3, 3)):
            load_tiles(w, R, reg, 'SI', k)
        cols4(R, 0, 1, 2, 3, (4, 5, 6, 7), (8, 9, 10, 11))
        a6(R, (4, 5, 6, 7), (8, 9, 10, 11, 12),
           lambda i, reg, r=r: emit(f'VMOVUPS {reg}, {(6 * r + i) * vb}(SP)'))
        if r < 3:
            emit('ADDQ BX, SI')
    a('\t// D̂ = A e, column j at a time; row i of D̂ at R8 … R13')
    emit('LEAQ (DX)(DX*2), AX', 'SHLQ $1, AX', 'MOVQ DI, R8')
    for i, reg in enumerate(('R9', 'R10', 'R11', 'R12', 'R13')):
        emit(f'LEAQ (R{8 + i})(AX*1), {reg}')
    for j in range(6):
        for i in range(4):
            emit(f'VMOVUPS {(6 * i + j) * vb}(SP), {R(i)}')
        a6(R, (0, 1, 2, 3), (4, 5, 6, 7, 8), lambda i, reg: emit(f'VMOVUPS {reg}, (R{8 + i})'))
        if j < 5:
            for i in range(6):
                emit(f'ADDQ DX, R{8 + i}')
    emit('VZEROUPPER', 'RET')

    # ---- f4output: Y = Aᵀ m A + bias of w tiles.
    a('')
    a(f'// func f4output{w}(m *float32, stride int, bias float32, y *float32, w int)')
    a(f'TEXT ·f4output{w}(SB), ${24 * vb}-40')
    emit('MOVQ m+0(FP), SI', 'MOVQ stride+8(FP), DX', 'SHLQ $2, DX', f'VBROADCASTSS bias+16(FP), {R(13)}',
         'MOVQ y+24(FP), DI', 'MOVQ w+32(FP), BX', 'SHLQ $2, BX')
    const(R, 15, 0x40800000)
    const(R, 14, 0x41000000)
    emit('LEAQ (DX)(DX*2), R10', 'SHLQ $1, R10', 'LEAQ (R10)(R10*2), R11', 'LEAQ (R11)(R10*2), R12')
    a('\t// s = Aᵀ m, column j at a time (m_ij at SI + (6i + j)·stride)')
    for j in range(6):
        emit(f'VMOVUPS (SI), {R(0)}', f'VMOVUPS (SI)(R10*1), {R(1)}', f'VMOVUPS (SI)(R10*2), {R(2)}',
             f'VMOVUPS (SI)(R11*1), {R(3)}', f'VMOVUPS (SI)(R10*4), {R(4)}', f'VMOVUPS (SI)(R12*1), {R(5)}')
        at6(R, (0, 1, 2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 12, 1))
        for i, reg in enumerate((10, 11, 12, 1)):
            emit(f'VMOVUPS {R(reg)}, {(6 * i + j) * vb}(SP)')
        if j < 5:
            emit('ADDQ DX, SI')
    a('\t// Y = s A + bias, row a at a time')
    for r in range(4):
        for i in range(6):
            emit(f'VMOVUPS {(6 * r + i) * vb}(SP), {R(i)}')
        at6(R, (0, 1, 2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 12, 1))
        for reg in (10, 11, 12, 1):
            emit(f'VADDPS {R(13)}, {R(reg)}, {R(reg)}')
        cols4(R, 10, 11, 12, 1, (6, 7, 8, 9), (2, 3, 4, 5))
        store_tiles(w, R, (6, 7, 8, 9), 'DI')
        if r < 3:
            emit('ADDQ BX, DI')
    emit('VZEROUPPER', 'RET')

    # ---- f4inputGradRow: padded columns 4x … 4x + 4w − 1 of a row of ∂x.
    a('')
    a(f'// func f4inputGradRow{w}(s *float32, sw int, row *float32)')
    a(f'TEXT ·f4inputGradRow{w}(SB), NOSPLIT, $0-24')
    emit('MOVQ s+0(FP), SI', 'MOVQ sw+8(FP), BX', 'SHLQ $2, BX', 'MOVQ row+16(FP), DI',
         'LEAQ (BX)(BX*2), R10', 'LEAQ (R10)(BX*2), R11')
    const(R, 15, 0x40800000)
    const(R, 14, 0x80000000)
    rows = ['(SI)', '(SI)(BX*1)', '(SI)(BX*2)', '(SI)(R10*1)', '(SI)(BX*4)', '(SI)(R11*1)']
    for l in range(6):
        emit(f'VMOVUPS {rows[l]}, {R(l)}')
    a('\t// c₀ … c₃ = (S Bᵀ) of the tiles x, c₄ and c₅ of the tiles x − 1')
    b6(R, (0, 1, 2, 3, 4, 5), (6, 7, 12, 13), {0: 8, 1: 9, 2: 10, 3: 11})
    for l in range(6):
        emit(f'VMOVUPS -4{rows[l]}, {R(l)}')
    b6q4(R, (0, 1, 2, 3, 4), 7, 6)
    emit(f'VADDPS {R(6)}, {R(8)}, {R(8)}', f'VADDPS {R(5)}, {R(9)}, {R(9)}')
    cols4(R, 8, 9, 10, 11, (4, 5, 6, 7), (0, 1, 2, 3))
    store_tiles(w, R, (4, 5, 6, 7), 'DI')
    emit('VZEROUPPER', 'RET')

    # ---- f4gradS: the S rows of a padded row ρ = 4y + α.
    for alpha in range(4):
        name = f'f4gradS{alpha}x{w}'
        a('')
        a(f'// func {name}(zc, zp *float32, stride int, dst *float32, sw int)')
        a(f'TEXT ·{name}(SB), NOSPLIT, $0-40')
        emit('MOVQ zc+0(FP), SI', 'MOVQ zp+8(FP), R8', 'MOVQ stride+16(FP), DX', 'SHLQ $2, DX',
             'MOVQ dst+24(FP), DI', 'MOVQ sw+32(FP), BX', 'SHLQ $2, BX',
             'LEAQ (DX)(DX*2), R10', 'SHLQ $1, R10', 'LEAQ (R10)(R10*2), R11', 'LEAQ (R11)(R10*2), R12')
        const(R, 15, 0x40800000)
        const(R, 14, 0x80000000)

        def rowsOf(base):
            return [f'({base})', f'({base})(R10*1)', f'({base})(R10*2)', f'({base})(R11*1)', f'({base})(R10*4)', f'({base})(R12*1)']
        for l in range(6):
            c, p = rowsOf('SI'), rowsOf('R8')
            if alpha == 0:  # 4·z₀(y) + q₄(y − 1)
                emit(f'VMOVUPS {c[0]}, {R(0)}', f'VMULPS {R(15)}, {R(0)}, {R(0)}')
                for i in range(5):
                    emit(f'VMOVUPS {p[i]}, {R(1 + i)}')
                b6q4(R, (1, 2, 3, 4, 5), 7, 6)
                emit(f'VADDPS {R(6)}, {R(0)}, {R(0)}')
                res = 0
            else:
                for i in range(6):
                    emit(f'VMOVUPS {c[i]}, {R(i)}')
                b6(R, (0, 1, 2, 3, 4, 5), (6, 7, 8, 9), {alpha: 10})
                res = 10
                if alpha == 1:  # q₁(y) + z₅(y − 1)
                    emit(f'VADDPS {p[5]}, {R(10)}, {R(10)}')
            emit(f'VMOVUPS {R(res)}, (DI)')
            if l < 5:
                emit('ADDQ DX, SI', 'ADDQ DX, R8', 'ADDQ BX, DI')
        emit('VZEROUPPER', 'RET')

open('f43_amd64.s', 'w').write('\n'.join(out) + '\n')
