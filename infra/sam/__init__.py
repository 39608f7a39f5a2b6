"""SAM / CloudFormation templates as Eddy stacks: the part of a template Eddy can run, and a list of the rest.

`load_stack` reads a template (YAML, short-form tags included, or JSON) through this module when the document
has Resources. What becomes what:

    AWS::DynamoDB::Table             tables     TableName (else the logical id), KeySchema, AttributeDefinitions,
                                                GlobalSecondaryIndexes, BillingMode, ProvisionedThroughput,
                                                StreamSpecification, TimeToLiveSpecification
    AWS::Lambda::Function            functions  FunctionName (else the logical id), Handler, Runtime, Timeout,
                                                MemorySize, Environment, Description; Code as a local folder
    AWS::Serverless::Function        functions  the same with CodeUri, plus Globals.Function; its Events of
                                     mappings   Type DynamoDB become mappings
    AWS::Lambda::EventSourceMapping  mappings   from a DynamoDB stream
    AWS::SQS::Queue, AWS::SNS::Topic, AWS::S3::Bucket   queues, topics, buckets (by name, else the logical id)

Anything else (other resource types, other event types, inline or S3 code, runtimes other than python3.x and
nodejs18.x/20.x/22.x,
LocalSecondaryIndexes) is listed in `stack.unsupported`, never dropped silently. Outputs are ignored.

Intrinsic functions are evaluated as the template is read. Ref of a resource gives its physical name (of a
queue too, not CloudFormation's URL; a topic's is its ARN, as in CloudFormation), of a parameter its Default; the pseudo parameters
are AWS::Region us-east-1, AWS::AccountId 123456789012, AWS::Partition aws and AWS::StackName the file's
stem. GetAtt Arn gives the ARNs Eddy uses; GetAtt Table.StreamArn is known only once the table exists, so it
may only name a mapping's source. Fn::If evaluates Conditions built of Fn::Equals, Fn::Not, Fn::And, Fn::Or.
Every error names the template and its place in it: `template.yaml: Resources.Orders.Properties.KeySchema: ...`.
"""

from .loader import is_template, template_loader
from .template import stack_from_template

__all__ = ["is_template", "stack_from_template", "template_loader"]
