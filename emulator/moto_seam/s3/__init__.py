"""moto's S3, changed while an emulator is open (each module's install() / uninstall(), in moto_seam.PATCHES' order):

  objects.py          objects stored and answered as S3 stores them: SSE-S3 (AES256) by default, a PutObject's
                      checksum of type FULL_OBJECT
  versioning.py       a bucket whose versioning is Suspended keeps its versions (moto drops them), a null version
                      named `null` where versioning was ever set
  object_changes.py   S3Backend.put_object / delete_object wrapped: each object change told to Eddy's ObjectChanges
  bucket_policies.py  a bucket policy applied as over HTTPS (a condition only on aws:SecureTransport)
"""
