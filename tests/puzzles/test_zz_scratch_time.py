import json, time
from io import StringIO
from django.core.management import call_command

def test_t(db, iolai_dir):
    t=time.time()
    out=StringIO()
    call_command("import_iolai", str(iolai_dir), "--slug", "iol", stdout=out)
    print(out.getvalue()); print("import", time.time()-t)
    t=time.time()
    out=StringIO()
    call_command("score", "iol", "--format", "json", stdout=out)
    print("score", time.time()-t)
    rows=json.loads(out.getvalue())
    print(len(rows), rows[0])
    t=time.time()
    call_command("import_iolai", str(iolai_dir), "--slug", "iol", stdout=out)
    print("reimport", time.time()-t)
